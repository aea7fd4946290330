import Foundation
import GRDB

/// A user's mute of one route (this direction), as the `route_mute` table
/// keeps it (migration `alerts-001-decisions`). Expired rows are harmless
/// and are pruned when the user mutes or unmutes again.
struct RouteMuteRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "route_mute"

    var userID: String
    var origin: String
    var destination: String
    var mutedUntilUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("userID", .text).notNull()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("mutedUntilUnixMs", .integer).notNull()
            table.primaryKey(["userID", "origin", "destination"])
        }
    }
}

/// A pause of all of a user's alerts, as the `alert_pause` table keeps it.
struct AlertPauseRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "alert_pause"

    var userID: String
    var pausedUntilUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("userID", .text).primaryKey()
            table.column("pausedUntilUnixMs", .integer).notNull()
        }
    }
}

/// A channel switched off by its endpoint (HTTP 410 Gone), as the
/// `channel_state` table keeps it, so it stays off across restarts until an
/// operator replays (which switches it back on).
struct ChannelStateRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "channel_state"

    var channel: Int
    var disabledAtUnixMs: Int64
    var reason: String

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("channel", .integer).primaryKey()
            table.column("disabledAtUnixMs", .integer).notNull()
            table.column("reason", .text).notNull()
        }
    }
}
