import FareLensStore
import Foundation
import GRDB
import Testing

@Suite("Per-service SQLite store")
struct ServiceDatabaseTests {
    static func migrations() -> ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("v1-fares") { db in
            try db.create(table: "fare") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("route", .text).notNull()
                table.column("amountMinor", .integer).notNull()
            }
        }
        return migrations
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("Opening creates <dir>/<service>.sqlite in WAL mode with every named migration applied")
    func opensAndMigrates() throws {
        let directory = try Self.temporaryDirectory()
        let database = try ServiceDatabase.open(service: "search", directory: directory, migrations: Self.migrations())
        #expect(database.path == directory + "/search.sqlite")
        #expect(try database.appliedMigrations() == ["v1-fares"])
        let journal = try database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        try database.close()
    }

    @Test("Reopening keeps the data and does not re-run migrations")
    func reopenKeepsData() throws {
        let directory = try Self.temporaryDirectory()
        let first = try ServiceDatabase.open(service: "scoring", directory: directory, migrations: Self.migrations())
        try first.write { db in try db.execute(sql: "INSERT INTO fare (route, amountMinor) VALUES ('LHR-JFK', 41000)") }
        try first.close()
        let second = try ServiceDatabase.open(service: "scoring", directory: directory, migrations: Self.migrations())
        #expect(try second.writer.read { db in try Int.fetchOne(db, sql: "SELECT amountMinor FROM fare") } == 41000)
        try second.close()
    }

    @Test("A missing data directory is a named error")
    func missingDirectory() {
        #expect(throws: StoreError.directoryMissing("/nonexistent/farelens")) {
            try ServiceDatabase.open(service: "search", directory: "/nonexistent/farelens", migrations: Self.migrations())
        }
    }

    @Test("A data directory that is a file is reported as a file, naming it (it was reported as missing: issue #63)")
    func directoryIsAFile() throws {
        let file = try Self.temporaryDirectory() + "/not-a-dir"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let error = #expect(throws: StoreError.self) {
            try ServiceDatabase.open(service: "search", directory: file, migrations: Self.migrations())
        }
        #expect(error?.codeName == "not-a-directory")
        #expect(error?.message.contains("'\(file)' is a file, not a directory") == true)
        #expect(throws: StoreError.notADirectory(file)) { try DataDirectory.prepare(file) }
    }

    @Test(
        "A read-only data directory is a named error",
        .enabled(if: geteuid() != 0, "root bypasses permission bits, so this cannot be staged as root")
    )
    func readOnlyDirectory() throws {
        let directory = try Self.temporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory)
        #expect(throws: StoreError.directoryNotWritable(directory)) {
            try ServiceDatabase.open(service: "search", directory: directory, migrations: Self.migrations())
        }
    }

    @Test("A full disk is reported as diskFull, not a crash")
    func diskFull() throws {
        let directory = try Self.temporaryDirectory()
        let database = try ServiceDatabase.open(service: "analytics", directory: directory, migrations: Self.migrations())
        // Cap the file at a few pages: SQLite then fails writes with SQLITE_FULL, as on a full disk.
        try database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 8") }
        let error = #expect(throws: StoreError.self) {
            try database.write { db in
                for _ in 0..<1000 {
                    try db.execute(sql: "INSERT INTO fare (route, amountMinor) VALUES (?, 1)", arguments: [String(repeating: "x", count: 4000)])
                }
            }
        }
        #expect(error?.codeName == "disk-full")
        try database.close()
    }

    @Test("A failing write is a named write error, not an open error")
    func writeFailure() throws {
        let database = try ServiceDatabase.inMemory(service: "alerts", migrations: Self.migrations())
        let error = #expect(throws: StoreError.self) {
            try database.write { db in try db.execute(sql: "INSERT INTO no_such_table VALUES (1)") }
        }
        #expect(error?.codeName == "write-failed")
    }

    @Test("Online backup copies the live database to another file")
    func backup() throws {
        let directory = try Self.temporaryDirectory()
        let database = try ServiceDatabase.open(service: "alerts", directory: directory, migrations: Self.migrations())
        try database.write { db in try db.execute(sql: "INSERT INTO fare (route, amountMinor) VALUES ('CDG-NRT', 65000)") }
        let copy = directory + "/alerts-backup.sqlite"
        try database.backup(to: copy)
        let restored = try DatabaseQueue(path: copy)
        #expect(try restored.read { db in try String.fetchOne(db, sql: "SELECT route FROM fare") } == "CDG-NRT")
        try database.close()
    }

    @Test("A backup to an unwritable place is a named error")
    func backupFailure() throws {
        let database = try ServiceDatabase.inMemory(service: "alerts", migrations: Self.migrations())
        let error = #expect(throws: StoreError.self) { try database.backup(to: "/nonexistent/dir/backup.sqlite") }
        #expect(error?.codeName == "backup-failed")
    }
}
