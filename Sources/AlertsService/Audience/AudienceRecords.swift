import FareLensMessages
import GRDB

/// A watchlist as alerts keeps it (table `audience_watchlist`, migration
/// `alerts-011-kept-audience`), from the watchlist service's
/// `WatchlistChanged`: its route, cabin, owner and whether it is active —
/// what an exceptional deal's watchlist factor needs (SPEC § 2).
struct AudienceWatchlistRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audience_watchlist"

    var watchlistID: String
    var userID: String
    var origin: String
    var destination: String
    /// `Cabin`'s raw value; an unspecified cabin is kept as economy (the watchlist service's own reading).
    var cabin: Int
    var active: Bool
    /// `at_unix_ms` of the event this row is from: an older event is not applied over it.
    var changedAtUnixMs: Int64

    init(_ event: WatchlistChanged) {
        watchlistID = event.watchlist.watchlistID
        userID = event.watchlist.userID
        origin = event.watchlist.origin
        destination = event.watchlist.destination
        cabin = (event.watchlist.cabin == .unspecified ? Cabin.economy : event.watchlist.cabin).rawValue
        active = event.watchlist.active
        changedAtUnixMs = event.atUnixMs
    }
}

/// What alerts knows of a user for an exceptional deal's audience (table
/// `audience_user`), from the subscription service's
/// `UserPreferencesChanged` and `UserDeleted`. Their airports are rows of
/// ``AudienceAirportRecord``.
struct AudienceUserRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audience_user"

    var userID: String
    /// `at_unix_ms` of the preferences last applied: an older event is not applied over them.
    var preferencesAtUnixMs: Int64
    /// Set once the user is deleted: no later-arriving event brings back their watchlists or airports
    /// (the two services' events reach alerts in no common order).
    var deletedAtUnixMs: Int64?
}

/// One of a user's preferred airports with its weight (table `audience_airport`).
struct AudienceAirportRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audience_airport"

    var userID: String
    /// An IATA airport or metro code, as subscription keeps it (upper case).
    var airport: String
    /// The preference's weight, 0–1 (the deal's queue score is multiplied by 1 + weight).
    var weight: Double
}

enum AudienceTables {
    /// The three tables, created by migration `alerts-011-kept-audience`.
    static func migrate(_ db: Database) throws {
        try db.create(table: AudienceWatchlistRecord.databaseTableName) { table in
            table.column("watchlistID", .text).primaryKey()
            table.column("userID", .text).notNull().indexed()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("cabin", .integer).notNull()
            table.column("active", .boolean).notNull()
            table.column("changedAtUnixMs", .integer).notNull()
        }
        try db.create(index: "audience_watchlist_on_route", on: AudienceWatchlistRecord.databaseTableName, columns: ["origin", "destination", "cabin"])
        try db.create(table: AudienceUserRecord.databaseTableName) { table in
            table.column("userID", .text).primaryKey()
            table.column("preferencesAtUnixMs", .integer).notNull()
            table.column("deletedAtUnixMs", .integer)
        }
        try db.create(table: AudienceAirportRecord.databaseTableName) { table in
            table.column("userID", .text).notNull()
            table.column("airport", .text).notNull().indexed()
            table.column("weight", .double).notNull()
            table.primaryKey(["userID", "airport"])
        }
    }
}
