import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB

/// Every service database's first table, owned by the runtime: one row per
/// start of the service, closed on clean shutdown (a row left open means the
/// process died).
enum ServiceRuns {
    static let migrationName = "runtime-v1-service-runs"

    /// The service's migrations with the runtime's own first.
    static func migrations(before service: ServiceMigrations) -> ServiceMigrations {
        var all = ServiceMigrations()
        all.register(migrationName) { db in
            try db.create(table: "service_run") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("node", .text).notNull()
                table.column("pid", .integer).notNull()
                table.column("startedAt", .datetime).notNull()
                table.column("stoppedAt", .datetime)
            }
        }
        all.registerInbox()
        service.forEachMigration { name, body in all.register(name, body) }
        return all
    }

    static func recordStart(in database: ServiceDatabase, node: String, at date: Date) throws -> Int64 {
        try database.writer.write { db in
            try db.execute(
                sql: "INSERT INTO service_run (node, pid, startedAt) VALUES (?, ?, ?)",
                arguments: [node, Int(getpid()), date]
            )
            return db.lastInsertedRowID
        }
    }

    static func recordStop(in database: ServiceDatabase, run: Int64, at date: Date) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE service_run SET stoppedAt = ? WHERE id = ?", arguments: [date, run])
        }
    }
}
