import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing

/// The write-ahead log copied on the checkpointer's connection, the
/// writer's backstop, and closing with a checkpoint queued
/// (docs/decisions/0023).
@Suite("Service database: the WAL checkpointed off the writer")
struct WALCheckpointerTests {
    static func migrations() -> ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("v1-blobs") { db in
            try db.create(table: "blob") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("bytes", .blob).notNull()
            }
        }
        return migrations
    }

    /// Writes `transactions` transactions of one 8 KiB row each (three pages
    /// of the log: two of overflow, one of the table).
    static func write(_ transactions: Int, to database: ServiceDatabase) throws {
        let bytes = Data(repeating: 0xA5, count: 8_192)
        for _ in 0..<transactions {
            try database.write { db in try db.execute(sql: "INSERT INTO blob (bytes) VALUES (?)", arguments: [bytes]) }
        }
    }

    /// A new database in a directory of its own, its log checkpointed past `trigger` pages and by the writer past `backstop`.
    static func open(_ service: String, trigger: Int, backstop: Int = 1_000_000) throws -> ServiceDatabase {
        try ServiceDatabase.open(
            service: service, directory: try ServiceDatabaseTests.temporaryDirectory(), migrations: migrations(),
            checkpointing: WALCheckpointing(triggerFrames: trigger, backstopFrames: backstop))
    }

    /// Waits (bounded) until the checkpointer has run a checkpoint, and returns the statistics then.
    static func checkpointed(_ database: ServiceDatabase) async throws -> WALCheckpointStatistics {
        try await waitUntil("the checkpointer has checkpointed", limit: .seconds(20)) { (database.checkpointStatistics?.byCheckpointer ?? 0) > 0 }
        return try #require(database.checkpointStatistics)
    }

    static func rows(_ database: ServiceDatabase) throws -> Int {
        try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM blob") ?? 0 }
    }

    static func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }

    @Test("Past the trigger the checkpointer's connection copies the log into the file; the writer copies nothing")
    func checkpointerCopies() async throws {
        let database = try Self.open("alerts", trigger: 30)
        let path = try #require(database.path)
        let before = try Self.fileSize(path)
        try Self.write(60, to: database)
        let statistics = try await Self.checkpointed(database)
        #expect(statistics.byWriter == 0)
        #expect(statistics.failed == 0, "\(statistics)")
        #expect(statistics.longestLog >= 30)
        // Copied into the file: its 60 rows of 8 KiB are there, not only in the log (SQLite's own checkpoint would wait for 1,000 pages).
        try await waitUntil("the file holds the rows", limit: .seconds(20)) { ((try? Self.fileSize(path)) ?? 0) >= before + 60 * 8_192 }
        try database.close()
    }

    @Test("With the checkpointer never reaching its trigger, the writer checkpoints at the backstop and the log stays bounded")
    func writerBackstop() throws {
        let database = try Self.open("alerts", trigger: 1_000_000, backstop: 40)
        try Self.write(200, to: database)
        let statistics = try #require(database.checkpointStatistics)
        #expect(statistics.byCheckpointer == 0)
        #expect(statistics.byWriter >= 10, "600 pages written, a checkpoint every 40: \(statistics)")
        // The backstop, and one transaction's pages (three, and the sequence's) past it at most: the log started over after each checkpoint.
        #expect(statistics.longestLog < 40 + 8, "\(statistics)")
        #expect(try Self.rows(database) == 200)
        try database.close()
    }

    @Test("Many writers at once: every row kept, checkpoints coalesced on the checkpointer, none failed")
    func concurrentWriters() async throws {
        let database = try Self.open("watchlist", trigger: 20)
        let bytes = Data(repeating: 0x5A, count: 8_192)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    for _ in 0..<25 {
                        try await database.awaitedWrite { db in try db.execute(sql: "INSERT INTO blob (bytes) VALUES (?)", arguments: [bytes]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let statistics = try await Self.checkpointed(database)
        #expect(statistics.failed == 0, "\(statistics)")
        #expect(statistics.byWriter == 0)
        // 400 commits, nearly all past the trigger (20 pages), from 16 tasks: one checkpoint queued at a time, not one a commit.
        #expect(statistics.mostQueued == 1, "\(statistics)")
        #expect(try Self.rows(database) == 400)
        #expect(try await database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        try database.close()
    }

    @Test("Closing with checkpoints queued waits for them; a second close is harmless; reopened, every row is there")
    func closeWithCheckpointQueued() throws {
        let directory = try ServiceDatabaseTests.temporaryDirectory()
        let first = try ServiceDatabase.open(service: "scoring", directory: directory, migrations: Self.migrations(), checkpointing: WALCheckpointing(triggerFrames: 1, backstopFrames: 1_000_000))
        try Self.write(50, to: first)
        try first.close()
        try first.close()
        let afterClose = #expect(throws: StoreError.self) { try Self.write(1, to: first) }
        #expect(afterClose?.codeName == "write-failed")
        let second = try ServiceDatabase.open(service: "scoring", directory: directory, migrations: Self.migrations())
        #expect(try Self.rows(second) == 50)
        try second.close()
    }

    @Test("Closed after reads (a reader connection open), the file is complete on its own: the log is copied in and deleted")
    func closeLeavesNoLog() throws {
        let database = try Self.open("alerts", trigger: WALCheckpointing().triggerFrames)
        let path = try #require(database.path)
        try Self.write(20, to: database)
        #expect(try Self.rows(database) == 20)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        try database.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM blob") } == 20)
        try reopened.close()
    }

    @Test("In memory there is no log and no checkpointer")
    func inMemory() throws {
        let database = try ServiceDatabase.inMemory(service: "alerts", migrations: Self.migrations())
        try Self.write(10, to: database)
        #expect(database.checkpointStatistics == nil)
    }
}
