import GRDB

/// Announcements a service that keeps other services' state from their
/// events wants when it starts without that state: on a new database (its
/// node may join after that state was made, and a durable event reaches
/// only the nodes that had joined when it was published), or after an
/// upgrade that makes it keep more.
///
/// A migration records the wanted announcements (in the
/// `wanted_announcement` table); the service's start asks for them
/// (`AnnouncementWanted`, FareLensServiceKit's `WantedAnnouncements`) and
/// forgets them once the asking event is published. A crash in between
/// asks again at the next start: announcing twice changes nothing for
/// those who keep the state.
extension ServiceMigrations {
    /// Registers migration `name` (such as `alerts-013-want-announcements`),
    /// which records that `announcements` are wanted.
    public mutating func registerWantedAnnouncements(named name: String, announcements: [String]) {
        register(name) { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS wanted_announcement (name TEXT PRIMARY KEY NOT NULL)")
            for announcement in announcements {
                try db.execute(sql: "INSERT OR IGNORE INTO wanted_announcement (name) VALUES (?)", arguments: [announcement])
            }
        }
    }
}

extension ServiceDatabase {
    /// The announcements still wanted, in name order (none without the table).
    public func wantedAnnouncements() throws -> [String] {
        try writer.read { db in
            guard try db.tableExists("wanted_announcement") else { return [] }
            return try String.fetchAll(db, sql: "SELECT name FROM wanted_announcement ORDER BY name")
        }
    }

    /// Forgets `announcements` as wanted: they were asked for.
    public func forgetWantedAnnouncements(_ announcements: [String]) throws {
        try writer.write { db in
            guard try db.tableExists("wanted_announcement") else { return }
            for announcement in announcements {
                try db.execute(sql: "DELETE FROM wanted_announcement WHERE name = ?", arguments: [announcement])
            }
        }
    }
}
