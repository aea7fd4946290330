import FareLensStore
import GRDB

extension OutboxJournal {
    /// The journal's named migrations. Once shipped, a migration is never
    /// edited: change the schema with a new one.
    ///
    /// Journals written before migrations existed already have both tables
    /// (created with `CREATE TABLE IF NOT EXISTS`, same columns) and no
    /// migration record; `ifNotExists` lets the first run adopt them as they
    /// are, rows included.
    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("bridge-001-outbox") { db in
            try db.create(table: OutboxRecord.databaseTableName, options: .ifNotExists) { table in
                table.column("peer", .text).notNull()
                table.column("tag", .integer).notNull()
                table.column("envelope", .blob).notNull()
                table.primaryKey(["peer", "tag"])
            }
        }
        migrations.register("bridge-002-known-peers") { db in
            try db.create(table: KnownPeerRecord.databaseTableName, options: .ifNotExists) { table in
                table.primaryKey("name", .text)
                table.column("hello", .blob).notNull()
            }
        }
        return migrations
    }
}
