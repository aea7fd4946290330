import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension SubscriptionService {
    /// Default and largest page of `ListUsers`.
    static let defaultPageSize = 100
    static let maximumPageSize = 1_000

    /// An operator sets a user's tier (cause `SET_BY_OPERATOR`): Free; a new
    /// 14-day trial from now; or Pro with a product and no paid period (it
    /// lasts until another change). Setting the tier a user already has
    /// changes nothing and publishes nothing.
    func setTier(_ request: SetTierRequest, context: RequestContext? = nil) throws(SubscriptionError) -> SetTierResponse {
        switch request.tier {
        case .free, .trial:
            guard request.product == .unspecified else { throw .invalidField("product", "only Pro has a product") }
        case .pro:
            guard request.product == .monthly || request.product == .annual else { throw .invalidField("product", "Pro needs MONTHLY or ANNUAL") }
        default:
            throw .invalidField("tier", "\(request.tier) is not a tier an operator can set (free, trial, pro)")
        }
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        let (user, before, changed) = try write { db throws(SubscriptionError) -> (UserRecord, Tier, Bool) in
            guard var user = try Self.catching({ try UserRecord.fetchOne(db, key: request.userID) }) else { throw .unknownUser(request.userID) }
            let before = user.tierValue
            guard before != request.tier || (request.tier == .pro && user.product != request.product.rawValue) else { return (user, before, false) }
            user.tier = request.tier.rawValue
            user.setByOperator = true
            user.graceUntilUnixMs = 0
            user.autoRenew = false
            switch request.tier {
            case .trial:
                user.trialEndsAtUnixMs = nowMs + Int64(TierEntitlements.trialDays) * 86_400_000
                user.trialStage = .running
            case .pro:
                user.product = request.product.rawValue
                user.paidUntilUnixMs = 0
                user.trialStage = .over
            default:
                user.trialStage = .over
            }
            try Self.catching { try user.update(db) }
            if before != user.tierValue { user = try self.appendTierChange(user, from: before, cause: .setByOperator, at: now, parent: context, in: db) }
            return (user, before, true)
        }
        if changed, before != user.tierValue {
            logger.notice("tier set by operator", metadata: ["user": "\(user.userID)", "tier": "\(user.tierValue)"])
        }
        var response = SetTierResponse()
        response.user = user.message
        response.unchanged = !changed
        return response
    }

    /// Users in id order, a page at a time.
    func listUsers(_ request: ListUsersRequest) throws(SubscriptionError) -> ListUsersResponse {
        guard request.pageSize >= 0, request.pageSize <= Self.maximumPageSize else {
            throw .invalidField("page_size", "\(request.pageSize) is not in 0–\(Self.maximumPageSize)")
        }
        // A token is the last user id of the page before (ids are "u-" and hex): anything else did not come from here.
        guard request.pageToken.isEmpty || request.pageToken.hasPrefix("u-") else {
            throw .invalidField("page_token", "'\(request.pageToken)' is not a next_page_token from an earlier page")
        }
        let size = request.pageSize == 0 ? Self.defaultPageSize : Int(request.pageSize)
        let (page, total): ([UserRecord], Int)
        do {
            (page, total) = try database.writer.read { db in
                let page = try UserRecord.filter(Column("userID") > request.pageToken).order(Column("userID")).limit(size + 1).fetchAll(db)
                return (page, try UserRecord.fetchCount(db))
            }
        } catch {
            throw .storage(error)
        }
        var response = ListUsersResponse()
        response.users = page.prefix(size).map(\.message)
        response.total = Int64(total)
        if page.count > size, let last = response.users.last { response.nextPageToken = last.userID }
        return response
    }

    /// Deletes a user and their purchase ledger; publishes durable
    /// `UserDeleted` so other services erase what they hold.
    func deleteUser(_ request: DeleteUserRequest, context: RequestContext? = nil) throws(SubscriptionError) -> DeleteUserResponse {
        var event = UserDeleted()
        event.userID = request.userID
        event.atUnixMs = Self.unixMs(clock.now())
        let deleted = event
        try write { db throws(SubscriptionError) in
            guard try Self.catching({ try UserRecord.deleteOne(db, key: request.userID) }) else { throw .unknownUser(request.userID) }
            _ = try Self.catching { try PurchaseRecord.filter(Column("userID") == request.userID).deleteAll(db) }
            // Every way to sign in as the user ends with it (the foreign keys cascade too).
            _ = try Self.catching { try CredentialRecord.deleteOne(db, key: request.userID) }
            _ = try Self.catching { try AppleSubjectRecord.filter(Column("userID") == request.userID).deleteAll(db) }
            _ = try Self.catching { try RefreshTokenRecord.filter(Column("userID") == request.userID).deleteAll(db) }
            // The App Store's notifications stay (their UUIDs keep retries idempotent) but no longer name the user.
            _ = try Self.catching { try StoreNotificationRecord.filter(Column("userID") == request.userID).updateAll(db, Column("userID").set(to: "")) }
            try Self.catching { try self.events.append(deleted, parent: context, in: db) }
        }
        logger.notice("user deleted", metadata: ["user": "\(request.userID)"])
        var response = DeleteUserResponse()
        response.userID = request.userID
        return response
    }

    /// The users with `airport` among their preferred airports, in id order,
    /// a page at a time (for exceptional-deal alerts).
    func preferredAirportUsers(_ request: PreferredAirportUsersRequest) throws(SubscriptionError) -> PreferredAirportUsersResponse {
        let code = request.airport.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .invalidField("airport", "'\(request.airport)' is not a three-letter IATA code")
        }
        guard request.pageSize >= 0, request.pageSize <= 10 * Self.maximumPageSize else {
            throw .invalidField("page_size", "\(request.pageSize) is not in 0–\(10 * Self.maximumPageSize)")
        }
        let size = request.pageSize == 0 ? Self.maximumPageSize : Int(request.pageSize)
        let rows: [Row]
        do {
            rows = try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT user.userID, user.tier, user.timeZone, json_extract(airport.value, '$.weight') AS weight
                    FROM user, json_each(user.preferredAirports) AS airport
                    WHERE json_extract(airport.value, '$.code') = ? AND user.userID > ?
                    ORDER BY user.userID LIMIT ?
                    """, arguments: [code, request.pageToken, size + 1])
            }
        } catch {
            throw .storage(error)
        }
        var response = PreferredAirportUsersResponse()
        response.users = rows.prefix(size).map { row in
            var user = PreferredAirportUser()
            user.userID = row["userID"]
            user.tier = Tier(rawValue: row["tier"]) ?? .unspecified
            user.timeZone = row["timeZone"]
            user.weight = row["weight"]
            return user
        }
        if rows.count > size, let last = response.users.last { response.nextPageToken = last.userID }
        return response
    }

    /// The airports users prefer, by how many users prefer each (for the
    /// market sweep).
    func preferredAirportSummary(_ request: PreferredAirportSummaryRequest) throws(SubscriptionError) -> PreferredAirportSummaryResponse {
        guard request.limit >= 0 else { throw .invalidField("limit", "must not be negative") }
        let counts: [PreferredAirportCount]
        do {
            counts = try database.writer.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT json_extract(airport.value, '$.code') AS code, COUNT(*) AS users
                    FROM user, json_each(user.preferredAirports) AS airport
                    GROUP BY code ORDER BY users DESC, code
                    \(request.limit > 0 ? "LIMIT \(request.limit)" : "")
                    """).map { row in
                    var count = PreferredAirportCount()
                    count.airport = row["code"]
                    count.users = row["users"]
                    return count
                }
            }
        } catch {
            throw .storage(error)
        }
        var response = PreferredAirportSummaryResponse()
        response.airports = counts
        return response
    }
}
