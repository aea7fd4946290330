import GRDB
internal import GRDBSQLite
import Synchronization

/// Copies a service database's write-ahead log into the database file on a
/// connection of its own, so that the service's writer does not
/// (docs/decisions/0023).
///
/// SQLite's automatic checkpoint runs inside the commit that takes the log
/// past 1,000 pages: the writer, the one thread every write of the service
/// queues on, stops to copy them. Installed on the writer instead,
/// ``install(on:)`` replaces that automatic checkpoint with a hook that:
/// - past ``WALCheckpointing/triggerFrames`` queues one `PASSIVE` checkpoint on this
///   object's own connection (commits meanwhile add nothing to the queue:
///   one checkpoint waiting is enough, since it copies everything committed
///   when it starts), and returns at once;
/// - past ``WALCheckpointing/backstopFrames`` checkpoints on the writer itself, as SQLite
///   would: when the writer commits faster than the other connection
///   copies, the log stops growing there.
///
/// A checkpoint never loses anything: what it has not copied stays in the
/// log, which readers and a restart read. SQLite starts the log over when a
/// write transaction begins after every page has been copied.
final class WALCheckpointer: Sendable {
    private enum State {
        /// No checkpoint queued.
        case idle
        /// One checkpoint queued on the connection, not yet started.
        case queued
        /// Closed: nothing more is queued.
        case closed
    }

    private let state = Mutex(State.idle)
    /// Whether the writer's hook holds this object (``install(on:)``, until ``release()``).
    private let heldByHook = Mutex(false)
    private let counts = Mutex(WALCheckpointStatistics())
    private let connection: DatabaseQueue
    private let checkpointing: WALCheckpointing

    /// Opens the checkpointer's own connection to the database at `path`
    /// (already in WAL mode).
    init(path: String, service: String, checkpointing: WALCheckpointing) throws {
        var configuration = Configuration()
        configuration.label = "\(service).checkpointer"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.checkpointing = checkpointing
    }

    /// Installs the hook on `writer`, the database's writing connection,
    /// in place of SQLite's automatic checkpoint. The hook holds this
    /// object until ``release()``.
    func install(on writer: Database) {
        heldByHook.withLock { $0 = true }
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_wal_hook(writer.sqliteConnection, walCommitHook, context)
    }

    /// Lets go of the hook's hold on this object: once the writer is
    /// closed, and only then (a second call does nothing).
    func release() {
        let held = heldByHook.withLock { held in
            defer { held = false }
            return held
        }
        if held { Unmanaged.passUnretained(self).release() }
    }

    /// What was checkpointed, and by whom, so far.
    var statistics: WALCheckpointStatistics { counts.withLock { $0 } }

    /// Stops queueing checkpoints: one queued already does nothing.
    func stop() {
        state.withLock { $0 = .closed }
    }

    /// Closes the checkpointer's connection, after ``stop()`` and once the
    /// database's other connections are closed: SQLite's last connection
    /// to a file copies the whole log into it and deletes the log.
    func close() throws {
        stop()
        try connection.close()
    }

    /// The hook, on the writer's thread, after each commit: `frames` is
    /// the log's length in pages.
    fileprivate func committed(frames: Int, writer: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        counts.withLock { $0.longestLog = max($0.longestLog, frames) }
        if frames >= checkpointing.backstopFrames {
            let result = sqlite3_wal_checkpoint_v2(writer, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            counts.withLock { $0.record(result, byWriter: true) }
        } else if frames >= checkpointing.triggerFrames {
            queue()
        }
    }

    private func queue() {
        let queued = state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .queued
            return true
        }
        guard queued else { return }
        counts.withLock { $0.queue() }
        connection.asyncWriteWithoutTransaction { [self] database in
            counts.withLock { $0.queued -= 1 }
            // Idle again before it starts: a commit during this checkpoint queues the next, which copies what it adds.
            let open = state.withLock { state -> Bool in
                guard case .queued = state else { return false }
                state = .idle
                return true
            }
            guard open else { return }
            let result = sqlite3_wal_checkpoint_v2(database.sqliteConnection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            counts.withLock { $0.record(result, byWriter: false) }
        }
    }
}

/// When a service database's write-ahead log is checkpointed, by its
/// length in pages (``ServiceDatabase/open(service:directory:migrations:checkpointing:)``).
public struct WALCheckpointing: Sendable, Equatable {
    /// Past this, a checkpoint is queued on the checkpointer's connection:
    /// SQLite's own automatic checkpoint's length.
    public var triggerFrames: Int
    /// Past this, the writer checkpoints itself (40 MiB of 4 KiB pages by
    /// default): the log's bound when the writer commits faster than the
    /// checkpointer copies.
    public var backstopFrames: Int

    public init(triggerFrames: Int = 1_000, backstopFrames: Int = 10_000) {
        self.triggerFrames = triggerFrames
        self.backstopFrames = backstopFrames
    }
}

/// How a service database's write-ahead log has been checkpointed since it
/// was opened (``ServiceDatabase/checkpointStatistics``).
public struct WALCheckpointStatistics: Sendable, Equatable {
    /// Checkpoints run on the checkpointer's own connection.
    public var byCheckpointer = 0
    /// Checkpoints the writer ran itself, the log being past the backstop.
    public var byWriter = 0
    /// Checkpoints that found the log busy (`SQLITE_BUSY`: a commit was
    /// rewriting the log's header as the checkpoint read it, or another
    /// checkpoint was running). The next commit past the trigger queues
    /// another, as SQLite's own automatic checkpoint does.
    public var busy = 0
    /// Checkpoints that failed otherwise (a full disk, an I/O error): what
    /// they did not copy stays in the log for the next one.
    public var failed = 0
    /// The SQLite result code of the last that failed (`SQLITE_FULL` is 13,
    /// `SQLITE_IOERR` 10), 0 when none has.
    public var lastFailureCode: Int32 = 0
    /// The longest the log was after a commit, in pages.
    public var longestLog = 0
    /// Checkpoints queued on the checkpointer's connection and not yet begun.
    public var queued = 0
    /// The most checkpoints queued at once: 1, since commits while one
    /// waits add nothing to the queue.
    public var mostQueued = 0

    mutating func queue() {
        queued += 1
        mostQueued = max(mostQueued, queued)
    }

    mutating func record(_ result: Int32, byWriter writer: Bool) {
        switch result {
        case SQLITE_OK where writer: byWriter += 1
        case SQLITE_OK: byCheckpointer += 1
        case SQLITE_BUSY: busy += 1
        default:
            failed += 1
            lastFailureCode = result
        }
    }
}

/// SQLite's WAL hook: a C function, its context the ``WALCheckpointer``.
/// Always `SQLITE_OK`: the commit has happened whatever a checkpoint does.
private let walCommitHook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { context, writer, schema, frames in
    guard let context else { return SQLITE_OK }
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: Int(frames), writer: writer, schema: schema)
    return SQLITE_OK
}
