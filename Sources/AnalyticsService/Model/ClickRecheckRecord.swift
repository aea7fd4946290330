import Foundation
import GRDB

/// A click to book a fare and what the re-check right after it found, as
/// the `click_recheck` table keeps it (migration `analytics-005-click-rechecks`):
/// the track record's clicks. One row per click-out (the gateway's, which
/// names the fare); kept 90 days like raw events, under the user's pseudonym
/// so delete-my-data finds it.
struct ClickRecheckRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "click_recheck"

    /// The click's client event id.
    var clientEventID: String
    var pseudonym: String
    /// The route the click counts on: the search's codes as asked.
    var origin: String
    var destination: String
    /// UTC day of the click (the track record's windows).
    var day: Int
    /// When the click was made (the gateway's clock): retention.
    var clickedAtUnixMs: Int64
    /// When analytics recorded it (its own clock, which a demo fast-forwards):
    /// what the 30 minutes a click may wait for its re-check are counted from.
    var recordedAtUnixMs: Int64
    /// The search that finds the fare again (`SearchFlightsRequest`, protobuf bytes).
    var search: Data
    /// The clicked total, in minor units of `currency`.
    var priceMinorUnits: Int64
    var currency: String
    var simulated: Bool
    /// `RecheckOutcome` raw value: 0 while waiting for the re-check; CONFIRMED,
    /// RISEN, or UNCONFIRMED when search could not say within 30 minutes.
    var outcome: Int
    /// When the outcome was recorded; 0 while waiting.
    var recheckedAtUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("clientEventID", .text).primaryKey()
            table.column("pseudonym", .text).notNull().indexed()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("day", .integer).notNull()
            table.column("clickedAtUnixMs", .integer).notNull().indexed()
            table.column("recordedAtUnixMs", .integer).notNull()
            table.column("search", .blob).notNull()
            table.column("priceMinorUnits", .integer).notNull()
            table.column("currency", .text).notNull()
            table.column("simulated", .boolean).notNull()
            table.column("outcome", .integer).notNull()
            table.column("recheckedAtUnixMs", .integer).notNull()
        }
        try db.create(index: "click_recheck_on_route", on: databaseTableName, columns: ["origin", "destination", "day"])
        try db.create(index: "click_recheck_waiting", on: databaseTableName, columns: ["outcome", "recordedAtUnixMs"])
    }
}
