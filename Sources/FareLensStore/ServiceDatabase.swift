public import GRDB
import Foundation

/// The database of one service: `<data-dir>/<service>.sqlite`, opened as a
/// WAL `DatabasePool` in production and in memory in tests. No service opens
/// another's file.
public struct ServiceDatabase: Sendable {
    /// The owning service's name.
    public let service: String
    /// Where the file is, or nil for an in-memory database.
    public let path: String?
    /// The GRDB connection (pool or queue) to read and write with.
    public let writer: any DatabaseWriter
    /// Copies the file's write-ahead log on a connection of its own (nil in memory).
    let checkpointer: WALCheckpointer?

    init(service: String, path: String?, writer: any DatabaseWriter, checkpointer: WALCheckpointer? = nil) {
        self.service = service
        self.path = path
        self.writer = writer
        self.checkpointer = checkpointer
    }

    /// Opens (creating if needed) and migrates the service's database file.
    /// Its write-ahead log is checkpointed on a connection of its own, as
    /// `checkpointing` says, not by the writer (docs/decisions/0023).
    ///
    /// - Throws: ``StoreError`` naming the directory or file at fault.
    public static func open(service: String, directory: String, migrations: ServiceMigrations, checkpointing: WALCheckpointing = WALCheckpointing()) throws(StoreError) -> ServiceDatabase {
        try DataDirectory.check(directory)
        let path = URL(fileURLWithPath: directory).appendingPathComponent("\(service).sqlite").path
        return try open(service: service, path: path, migrations: migrations, checkpointing: checkpointing)
    }

    /// Opens (creating if needed) and migrates the database file at `path`,
    /// as ``open(service:directory:migrations:checkpointing:)`` does for a
    /// service's: for the node's own files (the bridge's outbox journal)
    /// that are no service's. `service` labels its connections. Like every
    /// pool GRDB opens, the file is in WAL mode with `synchronous = NORMAL`:
    /// a commit survives a crash of the process.
    ///
    /// - Throws: ``StoreError`` naming the file at fault.
    public static func open(
        service: String, path: String, migrations: ServiceMigrations, checkpointing: WALCheckpointing = WALCheckpointing()
    ) throws(StoreError) -> ServiceDatabase {
        SQLiteProcessSettings.apply()
        let pool: DatabasePool
        do {
            var configuration = Configuration()
            configuration.label = service
            configuration.busyMode = .timeout(5)
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw StoreError.from(error, path: path, or: StoreError.openFailed)
        }
        do {
            try migrations.apply(to: pool)
        } catch {
            throw StoreError.from(error, path: path, or: StoreError.migrationFailed)
        }
        let checkpointer: WALCheckpointer
        do {
            checkpointer = try WALCheckpointer(path: path, service: service, checkpointing: checkpointing)
            pool.writeWithoutTransaction { db in checkpointer.install(on: db) }
        } catch {
            try? pool.close()
            throw StoreError.from(error, path: path, or: StoreError.openFailed)
        }
        return ServiceDatabase(service: service, path: path, writer: pool, checkpointer: checkpointer)
    }

    /// An in-memory database with the same migrations (for tests).
    public static func inMemory(service: String, migrations: ServiceMigrations) throws(StoreError) -> ServiceDatabase {
        SQLiteProcessSettings.apply()
        do {
            let queue = try DatabaseQueue(named: nil)
            try migrations.apply(to: queue)
            return ServiceDatabase(service: service, path: nil, writer: queue)
        } catch {
            throw StoreError.from(error, path: ":memory:", or: StoreError.migrationFailed)
        }
    }

    /// Copies the live database to `destination` with SQLite's online backup
    /// (readers and writers keep working meanwhile).
    public func backup(to destination: String) throws(StoreError) {
        do {
            let target = try DatabaseQueue(path: destination)
            try writer.backup(to: target)
            try target.close()
        } catch {
            throw StoreError.from(error, path: destination, or: StoreError.backupFailed)
        }
    }

    /// Runs a write transaction, reporting failures as ``StoreError``
    /// (a full disk is ``StoreError/diskFull(_:)``, never a crash).
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.write(body)
        } catch {
            throw StoreError.from(error, path: path ?? ":memory:", or: StoreError.writeFailed)
        }
    }

    /// Runs a read, reporting failures as ``StoreError`` (`read-failed`
    /// unless more specific), like ``write(_:)``.
    public func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.read(body)
        } catch {
            throw StoreError.from(error, path: path ?? ":memory:", or: StoreError.readFailed)
        }
    }

    /// Runs a read, awaited (the calling thread is free while a reader is
    /// found), reporting failures as ``StoreError`` (`read-failed` unless
    /// more specific).
    public func awaitedRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await writer.read(body)
        } catch {
            throw StoreError.from(error, path: path ?? ":memory:", or: StoreError.readFailed)
        }
    }

    /// Runs a write transaction, awaited (the calling thread is free while
    /// the service's own transactions hold the writer), reporting failures
    /// as ``StoreError`` like ``write(_:)``.
    public func awaitedWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await writer.write(body)
        } catch {
            throw StoreError.from(error, path: path ?? ":memory:", or: StoreError.writeFailed)
        }
    }

    /// How the write-ahead log has been checkpointed since the file was
    /// opened (nil in memory).
    public var checkpointStatistics: WALCheckpointStatistics? { checkpointer?.statistics }

    /// Closes every connection. Later use fails with a database error.
    ///
    /// The checkpointer's connection closes last: a pool closes its writer
    /// before its readers, and a read-only connection closing last leaves
    /// the log beside the file. The checkpointer, closing last, copies the
    /// whole log into the file and deletes it, so a file closed cleanly is
    /// complete on its own.
    public func close() throws {
        checkpointer?.stop()
        if let pool = writer as? DatabasePool {
            try pool.close()
            // The writer is closed: its hook will not run again.
            checkpointer?.release()
        }
        if let queue = writer as? DatabaseQueue { try queue.close() }
        try checkpointer?.close()
    }

    /// Names of the migrations applied so far.
    public func appliedMigrations() throws -> [String] {
        try writer.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
    }
}
