import FareLensMessages
import GRDB

/// One commission notification, as the `commission` table keeps it
/// (migration `analytics-001-events`), by the network's notification id: a
/// repeat with the same status is a duplicate, another status updates it.
/// No user id. Kept for good (it is the ledger the conversion roll-up
/// follows).
struct CommissionRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "commission"

    var notificationID: String
    var subID: String
    var provider: String
    /// `CommissionStatus` raw value.
    var status: Int
    var commissionMinor: Int64
    var commissionCurrency: String
    var bookingValueMinor: Int64
    var bookingValueCurrency: String
    var bookedAtUnixMs: Int64
    /// UTC day of the booking (of receipt when the network sent no time).
    var day: Int
    /// From the sub-id; "" when it did not parse.
    var dealID: String
    /// Placement word from the sub-id ("dealcard" …); "" when it did not parse.
    var placement: String
    /// Whether a recorded click carried the sub-id.
    var matched: Bool
    var updatedAtUnixMs: Int64

    /// Whether it counts as a booking: matched and not cancelled.
    var counts: Bool { matched && status != CommissionStatus.cancelled.rawValue }

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("notificationID", .text).primaryKey()
            table.column("subID", .text).notNull().indexed()
            table.column("provider", .text).notNull()
            table.column("status", .integer).notNull()
            table.column("commissionMinor", .integer).notNull()
            table.column("commissionCurrency", .text).notNull()
            table.column("bookingValueMinor", .integer).notNull()
            table.column("bookingValueCurrency", .text).notNull()
            table.column("bookedAtUnixMs", .integer).notNull()
            table.column("day", .integer).notNull()
            table.column("dealID", .text).notNull()
            table.column("placement", .text).notNull()
            table.column("matched", .boolean).notNull()
            table.column("updatedAtUnixMs", .integer).notNull()
        }
    }

    /// Adds (`sign` 1) or takes back (`sign` -1) what it contributes to the `conversions` roll-up.
    func contribute(_ sign: Int64, to rollups: inout RollupBatch) {
        guard counts else { return }
        rollups.add(.conversions, day: day, placement, currency: commissionCurrency, hits: sign, amountMinor: sign * commissionMinor)
    }
}
