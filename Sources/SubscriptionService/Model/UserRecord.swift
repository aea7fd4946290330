import FareLensMessages
import Foundation
import GRDB

/// One account, as the `user` table stores it (migration
/// `subscription-001-users`). The wire form is ``FareLensMessages/User``.
struct UserRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "user"

    /// One preferred airport; stored as JSON in `preferredAirports`.
    struct Airport: Codable, Sendable, Equatable {
        var code: String
        var weight: Double
    }

    /// Keeps the first `allowed` preferred airports (the first chosen: the
    /// order the user gave them) and returns the codes removed. One kept
    /// airport has weight 1.0, as Free's one airport has (SPEC §4); several
    /// keep their weights in proportion, summing to what they summed to.
    mutating func trimmingPreferredAirports(to allowed: Int) -> [String] {
        guard allowed >= 0, preferredAirports.count > allowed else { return [] }
        let removed = preferredAirports[allowed...].map(\.code)
        var kept = Array(preferredAirports.prefix(allowed))
        if kept.count == 1 {
            kept[0].weight = 1
        } else {
            let total = preferredAirports.reduce(0) { $0 + $1.weight }, keptTotal = kept.reduce(0) { $0 + $1.weight }
            if keptTotal > 0 { kept = kept.map { Airport(code: $0.code, weight: $0.weight * total / keptTotal) } }
        }
        preferredAirports = kept
        return removed
    }

    /// How far a trial has gone: which `TrialEnding` stages were published.
    enum TrialStage: Int, Codable, Sendable {
        /// Nothing published yet.
        case running = 0
        /// `ONE_DAY_LEFT` published.
        case reminded = 1
        /// `EXPIRED` published and the tier is Free (or the trial ended by a purchase).
        case over = 2
    }

    var userID: String
    /// Lower-cased; unique.
    var email: String
    var timeZone: String
    var homeAirport: String
    var preferredAirports: [Airport]
    /// Minutes after local midnight.
    var quietStartMinute: Int
    var quietEndMinute: Int
    var quietDisabled: Bool
    var tier: Int
    var trialEndsAtUnixMs: Int64
    var trialStage: TrialStage
    var product: Int
    var paidUntilUnixMs: Int64
    var autoRenew: Bool
    var createdAtUnixMs: Int64
    /// The UUID (lower case) the app sets as StoreKit's `appAccountToken`:
    /// the App Store names the user by it (migration `subscription-006-app-store`).
    var appAccountToken: String = ""
    /// The ISO 4217 code prices are also shown in ("≈"); "" for none (migration `subscription-007-display-currency`).
    var currency: String = ""
    /// Pro in a billing retry: access until then; 0 otherwise (migration `subscription-002-purchases`).
    var graceUntilUnixMs: Int64 = 0
    /// The tier was set by an operator and no purchase has changed it since.
    var setByOperator = false
    /// When the latest applied purchase notification occurred; an older one is stale.
    var lastNotificationAtUnixMs: Int64 = 0

    /// The default quiet hours, 22:00–07:00.
    static let defaultQuietStart = 22 * 60
    static let defaultQuietEnd = 7 * 60

    var tierValue: Tier { Tier(rawValue: tier) ?? .unspecified }

    /// The wire form.
    var message: User {
        var user = User()
        user.userID = userID
        user.email = email
        user.timeZone = timeZone
        user.homeAirport = homeAirport
        user.preferredAirports = preferredAirports.map { airport in
            var preferred = PreferredAirport()
            preferred.code = airport.code
            preferred.weight = airport.weight
            return preferred
        }
        user.quietHours = quietHours
        user.tier = tierValue
        user.trialEndsAtUnixMs = trialEndsAtUnixMs
        // The paid fields describe a Pro user only; the row keeps them after a downgrade (the ledger explains them).
        if tierValue == .pro {
            user.product = SubscriptionProduct(rawValue: product) ?? .unspecified
            user.paidUntilUnixMs = paidUntilUnixMs
            user.autoRenew = autoRenew
            user.graceUntilUnixMs = graceUntilUnixMs
        }
        user.createdAtUnixMs = createdAtUnixMs
        user.setByOperator = setByOperator
        user.appAccountToken = appAccountToken
        user.currency = currency
        return user
    }

    var quietHours: QuietHours {
        var hours = QuietHours()
        hours.start.hour = Int32(quietStartMinute / 60)
        hours.start.minute = Int32(quietStartMinute % 60)
        hours.end.hour = Int32(quietEndMinute / 60)
        hours.end.minute = Int32(quietEndMinute % 60)
        hours.disabled = quietDisabled
        return hours
    }

    /// The table, created by migration `subscription-001-users`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("userID", .text).primaryKey()
            table.column("email", .text).notNull().unique()
            table.column("timeZone", .text).notNull()
            table.column("homeAirport", .text).notNull()
            table.column("preferredAirports", .text).notNull()
            table.column("quietStartMinute", .integer).notNull()
            table.column("quietEndMinute", .integer).notNull()
            table.column("quietDisabled", .boolean).notNull()
            table.column("tier", .integer).notNull()
            table.column("trialEndsAtUnixMs", .integer).notNull().indexed()
            table.column("trialStage", .integer).notNull()
            table.column("product", .integer).notNull()
            table.column("paidUntilUnixMs", .integer).notNull()
            table.column("autoRenew", .boolean).notNull()
            table.column("createdAtUnixMs", .integer).notNull()
        }
    }

    /// Migration `subscription-002-purchases`: the columns purchases and operators need.
    /// Migration `subscription-006-app-store`: every user gets an
    /// `appAccountToken`, a random UUID, unique.
    static func migrateForAppStore(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "appAccountToken", .text).notNull().defaults(to: "")
        }
        for userID in try String.fetchAll(db, sql: "SELECT userID FROM user") {
            try db.execute(sql: "UPDATE user SET appAccountToken = ? WHERE userID = ?", arguments: [UUID().uuidString.lowercased(), userID])
        }
        try db.create(index: "user_appAccountToken", on: databaseTableName, columns: ["appAccountToken"], unique: true)
    }

    /// Migration `subscription-007-display-currency`.
    static func migrateForDisplayCurrency(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "currency", .text).notNull().defaults(to: "")
        }
    }

    static func migrateForPurchases(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "graceUntilUnixMs", .integer).notNull().defaults(to: 0)
            table.add(column: "setByOperator", .boolean).notNull().defaults(to: false)
            table.add(column: "lastNotificationAtUnixMs", .integer).notNull().defaults(to: 0)
        }
        try db.create(index: "user_on_paidUntilUnixMs", on: databaseTableName, columns: ["paidUntilUnixMs"])
    }
}
