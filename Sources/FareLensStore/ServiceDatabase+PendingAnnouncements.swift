public import GRDB

/// Announcements a service owes its event consumers once: when an upgrade
/// adds a consumer that keeps the service's state from its events (search
/// keeping watched routes from `WatchlistChanged`), the service announces
/// what it holds as it stands, so the new consumer does not start empty.
///
/// A migration records that an announcement is due (in the
/// `pending_announcement` table); the service's run makes it
/// (``makePendingAnnouncement(_:_:)``) in the transaction that writes the
/// announcing events into its outbox, so the announcement is made exactly
/// once, crash or not, and on a new database announces nothing (there is
/// nothing yet).
extension ServiceMigrations {
    /// Registers migration `name` (such as `watchlist-003-announce-watchlists`),
    /// which records that `announcement` is due.
    public mutating func registerPendingAnnouncement(named name: String, announcement: String) {
        register(name) { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS pending_announcement (name TEXT PRIMARY KEY NOT NULL)")
            try db.execute(sql: "INSERT OR IGNORE INTO pending_announcement (name) VALUES (?)", arguments: [announcement])
        }
    }
}

extension ServiceDatabase {
    /// Whether `announcement` was due, marking it made: call it inside the
    /// write transaction `db` that writes the announcing events, so a
    /// rollback leaves it due.
    static func takePendingAnnouncement(_ announcement: String, in db: Database) throws -> Bool {
        guard try db.tableExists("pending_announcement") else { return false }
        try db.execute(sql: "DELETE FROM pending_announcement WHERE name = ?", arguments: [announcement])
        return db.changesCount > 0
    }

    /// Records that `announcement` is due again: a consumer that started
    /// without the state it keeps asked for it (`AnnouncementWanted`). The
    /// next ``makePendingAnnouncement(_:_:)`` makes it.
    public func oweAnnouncement(_ announcement: String) throws {
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS pending_announcement (name TEXT PRIMARY KEY NOT NULL)")
            try db.execute(sql: "INSERT OR IGNORE INTO pending_announcement (name) VALUES (?)", arguments: [announcement])
        }
    }

    /// Makes `announcement` if it is due: `announce` writes the announcing
    /// events (into the outbox) in the transaction that marks it made.
    ///
    /// - Returns: what `announce` returns (how many it announced), or 0 when it was not due.
    public func makePendingAnnouncement(_ announcement: String, _ announce: @Sendable (Database) throws -> Int) throws -> Int {
        try writer.write { db in
            guard try Self.takePendingAnnouncement(announcement, in: db) else { return 0 }
            return try announce(db)
        }
    }
}
