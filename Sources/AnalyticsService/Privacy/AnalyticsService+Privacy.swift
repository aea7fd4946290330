import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension AnalyticsService {
    /// Opts a user out of recording (or back in). Stored as the user's
    /// current pseudonym; opting back in removes the opt-out under every key
    /// version. Nothing already recorded is deleted (that is DeleteUserData).
    ///
    /// The user is asked of the subscription service first, so a mistyped
    /// id is refused rather than recorded while the real user goes on being
    /// recorded. When subscription cannot be asked, the change is made anyway
    /// (a privacy request does not wait for another service; an opt-out of
    /// an id that is no account costs one row) and a warning is logged.
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` `user_id` when it is
    ///   empty; `unknown-user` when subscription has no such user.
    func setOptOut(_ request: SetAnalyticsOptOutRequest, context: RequestContext? = nil) async throws(AnalyticsError) -> SetAnalyticsOptOutResponse {
        let pseudonyms = try Self.pseudonyms(request.userID, keyring)
        try await refuseUnknownUser(request.userID, context: context)
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

    /// Throws `unknown-user` when the subscription service answers that it
    /// has no user `userID`; logs and returns when it cannot be asked.
    private func refuseUnknownUser(_ userID: String, context: RequestContext?) async throws(AnalyticsError) {
        let found: GetUserResponse?
        do {
            found = try await GetUserRequest.user(userID, on: bus, parent: context)
        } catch {
            logger.warning("opt-out changed without checking that the user exists: the subscription service could not be asked", metadata: ["error": "\(error)"])
            return
        }
        guard found != nil else { throw .unknownUser(userID) }
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
        try ClickRecheckRecord.filter(mine).deleteAll(db)
        if includingOptOut { try OptOutRecord.filter(mine).deleteAll(db) }
        return events
    }

    /// The user's pseudonyms under every key, current first.
    static func pseudonyms(_ userID: String, _ keyring: PseudonymKeyring) throws(AnalyticsError) -> [String] {
        guard !userID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidField("user_id", "is required") }
        return keyring.all(userID)
    }
}
