import FareLensBus
import FareLensMessages
import FareLensServiceKit
import GRDB

/// A watchlist as search keeps it for the market sweep (table
/// `sweep_watchlist`, migration `search-002-sweep-targets`), from the
/// watchlist service's `WatchlistChanged` events: only its route, its owner
/// and whether it is active.
struct SweptWatchlistRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord, ChangeStampedRecord {
    static let databaseTableName = "sweep_watchlist"

    var watchlistID: String
    var userID: String
    var origin: String
    var destination: String
    /// `Cabin`'s raw value.
    var cabin: Int
    var active: Bool
    /// `at_unix_ms` of the event this row is from: an older event is not applied over it.
    var changedAtUnixMs: Int64
    /// The publisher and sequence of the event this row is from (migration
    /// `search-006-watchlist-change-order`; nil in a row kept before it): of
    /// two changes in one millisecond, the earlier in that sequence is not
    /// applied over the later (``ChangeStamp``).
    var changedBy: String?
    var changedSequence: Int64?

    init(_ event: WatchlistChanged, id: EventID?) {
        watchlistID = event.watchlist.watchlistID
        userID = event.watchlist.userID
        origin = event.watchlist.origin
        destination = event.watchlist.destination
        cabin = event.watchlist.cabin.rawValue
        active = event.watchlist.active
        let stamp = ChangeStamp(atUnixMs: event.atUnixMs, id: id)
        (changedAtUnixMs, changedBy, changedSequence) = (stamp.atUnixMs, stamp.publisher, stamp.sequence)
    }
}

/// What search knows of a user for the market sweep (table `sweep_user`,
/// migration `search-002-sweep-targets`), from the subscription service's
/// `UserPreferencesChanged` and `UserDeleted` events. Their airports are
/// rows of ``SweptAirportRecord``.
struct SweptUserRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sweep_user"

    var userID: String
    /// `at_unix_ms` of the preferences last applied: an older event is not applied over them.
    var preferencesAtUnixMs: Int64
    /// Set once the user is deleted: no later-arriving event brings back their watchlists or airports
    /// (the two services' events reach search in no common order).
    var deletedAtUnixMs: Int64?
}

/// One of a user's preferred airports as search keeps it (table
/// `sweep_preferred_airport`, migration `search-002-sweep-targets`).
struct SweptAirportRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sweep_preferred_airport"

    var userID: String
    /// An IATA airport or metro code.
    var airport: String
}

/// A watchlist search was told is deleted (table `sweep_deleted_watchlist`,
/// migration `search-005-deleted-watchlists`): a deletion is final, so an
/// earlier event of it that arrives after the deletion (a durable event
/// delivered again after a lost acknowledgement arrives out of order)
/// brings nothing back. One short row per deleted watchlist, kept for good.
struct SweptDeletedWatchlistRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sweep_deleted_watchlist"

    var watchlistID: String
    /// `at_unix_ms` of the deletion.
    var deletedAtUnixMs: Int64

    /// Migration `search-005-deleted-watchlists`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("watchlistID", .text).primaryKey()
            table.column("deletedAtUnixMs", .integer).notNull()
        }
    }
}

enum SweepTargetTables {
    /// The three tables, created by migration `search-002-sweep-targets`.
    static func migrate(_ db: Database) throws {
        try db.create(table: SweptWatchlistRecord.databaseTableName) { table in
            table.column("watchlistID", .text).primaryKey()
            table.column("userID", .text).notNull().indexed()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("cabin", .integer).notNull()
            table.column("active", .boolean).notNull()
            table.column("changedAtUnixMs", .integer).notNull()
        }
        try db.create(table: SweptUserRecord.databaseTableName) { table in
            table.column("userID", .text).primaryKey()
            table.column("preferencesAtUnixMs", .integer).notNull()
            table.column("deletedAtUnixMs", .integer)
        }
        try db.create(table: SweptAirportRecord.databaseTableName) { table in
            table.column("userID", .text).notNull()
            table.column("airport", .text).notNull()
            table.primaryKey(["userID", "airport"])
        }
    }
}
