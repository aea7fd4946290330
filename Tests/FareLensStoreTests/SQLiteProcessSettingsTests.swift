import FareLensStore
import Foundation
import GRDB
import Testing

/// SQLite's process-wide settings (docs/decisions/0018). Runs after the test
/// command's parallel run, in a process of its own with the other alone suites, so
/// that opening a service database is the first use of SQLite in it: a
/// test elsewhere that opened a `DatabaseQueue` directly would come first.
@Suite struct SQLiteProcessSettingsTests {
    @Test("opening a service database first turns SQLite's memory statistics off: the settings took effect and SQLite counts no memory")
    func memoryStatisticsOff() throws {
        let directory = NSTemporaryDirectory() + "farelens-sqlite-settings-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrations = ServiceMigrations()
        migrations.register("settings-001") { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT NOT NULL)") }
        let database = try ServiceDatabase.open(service: "settings", directory: directory, migrations: migrations)
        try database.writer.write { db in
            for index in 0..<1_000 { try db.execute(sql: "INSERT INTO t (text) VALUES (?)", arguments: [String(repeating: "x", count: index)]) }
        }
        #expect(SQLiteProcessSettings.apply())
        #expect(SQLiteProcessSettings.countedMemoryBytes == 0)
        #expect(try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM t") } == 1_000)
    }
}
