import FareLensMessages
import Foundation
import GRDB

extension AnalyticsService {
    /// Opts a user out of recording (or back in). Stored as the user's
    /// current pseudonym; opting back in removes the opt-out under every key
    /// version. Nothing already recorded is deleted (that is DeleteUserData).
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` `user_id` when it is empty.
    func setOptOut(_ request: SetAnalyticsOptOutRequest) throws(AnalyticsError) -> SetAnalyticsOptOutResponse {
        let pseudonyms = try Self.pseudonyms(request.userID, keyring)
        let nowMs = clock.now().unixMilliseconds
        if request.optOut {
            if !isOptedOut(pseudonyms) {
                try write { db throws(AnalyticsError) in
                    try Self.catching { try OptOutRecord(pseudonym: pseudonyms[0], optedOutAtUnixMs: nowMs).save(db) }
                }
                optedOut.insert(pseudonyms[0])
            }
        } else {
            try write { db throws(AnalyticsError) in
                _ = try Self.catching { try OptOutRecord.filter(pseudonyms.contains(Column("pseudonym"))).deleteAll(db) }
            }
            optedOut.subtract(pseudonyms)
        }
        var response = SetAnalyticsOptOutResponse()
        response.optedOut = request.optOut
        return response
    }

    /// Erases the user's raw events and their rows in the pseudonymous
    /// tables (trial starts, alerts seen), found under every key version.
    /// The opt-out stays (deleting one's data must not turn recording back
    /// on); roll-ups hold no user id and stay.
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` `user_id` when it is empty.
    func deleteUserData(_ request: DeleteUserDataRequest) throws(AnalyticsError) -> DeleteUserDataResponse {
        let pseudonyms = try Self.pseudonyms(request.userID, keyring)
        let deleted = try write { db throws(AnalyticsError) in
            try Self.catching { try Self.erase(pseudonyms, includingOptOut: false, db) }
        }
        logger.info("a user's analytics data was deleted on request", metadata: ["events": "\(deleted)"])
        var response = DeleteUserDataResponse()
        response.eventsDeleted = Int64(deleted)
        return response
    }

    /// Deletes every row of `pseudonyms` in the tables that carry one.
    ///
    /// - Returns: raw events deleted (client and service).
    static func erase(_ pseudonyms: [String], includingOptOut: Bool, _ db: Database) throws -> Int {
        let mine = pseudonyms.contains(Column("pseudonym"))
        let events = try ClientEventRecord.filter(mine).deleteAll(db) + ServiceEventRecord.filter(mine).deleteAll(db)
        try TrialUserRecord.filter(mine).deleteAll(db)
        try AlertSeenRecord.filter(mine).deleteAll(db)
        if includingOptOut { try OptOutRecord.filter(mine).deleteAll(db) }
        return events
    }

    /// The user's pseudonyms under every key, current first.
    static func pseudonyms(_ userID: String, _ keyring: PseudonymKeyring) throws(AnalyticsError) -> [String] {
        guard !userID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidField("user_id", "is required") }
        return keyring.all(userID)
    }
}
