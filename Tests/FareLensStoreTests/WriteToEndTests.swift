import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Synchronization
import Testing

/// `ServiceDatabase.writeToEnd`: a write awaited (the caller's thread is
/// free meanwhile) in a task of its own (not cancelled with the caller).
@Suite("A write awaited to its end")
struct WriteToEndTests {
    struct Refusal: Error {
        let code: String
        var underlying: (any Error)? = nil
    }

    @Test("a caller cancelled while its write waits for the busy writer does not cancel the write: it commits")
    func notCancelledWithTheCaller() async throws {
        let database = try ServiceDatabase.inMemory(service: "test", migrations: ServiceDatabaseTests.migrations())
        let holding = Atomic(false)
        let release = DispatchSemaphore(value: 0)
        // Holds the writer (bounded at 5 s), so the caller's write waits behind it. The synchronous write runs on a
        // dispatch thread: on a task it held one of the concurrency pool's two threads for as long, and the waits of
        // every other test running beside it with them.
        let held = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? database.writer.write { _ in
                holding.store(true, ordering: .releasing)
                _ = release.wait(timeout: .now() + 5)  // safe: bounded; signalled as soon as the caller is cancelled
            }
            held.signal()
        }
        let holder = Task.detached { await withCheckedContinuation { continuation in
            DispatchQueue.global().async { held.wait(); continuation.resume() }  // safe: off the pool; the write above ends within 5 s
        } }
        try await waitUntil("the writer is held", limit: .seconds(5)) { holding.load(ordering: .acquiring) }
        let caller = Task {
            try await database.writeToEnd { db in try db.execute(sql: "INSERT INTO fare (route, amountMinor) VALUES ('LHR-JFK', 41000)") }
        }
        caller.cancel()
        release.signal()
        _ = await caller.result
        await holder.value
        let count = try await database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM fare") }
        #expect(count == 1)
    }

    @Test("the body's own error comes out as it is; a failure of the database becomes the storage error, which keeps the database's error as its cause")
    func errors() async throws {
        let database = try ServiceDatabase.inMemory(service: "test", migrations: ServiceDatabaseTests.migrations())
        let storage = { (error: any Error) in Refusal(code: "storage", underlying: error) }
        let own = await #expect(throws: Refusal.self) {
            try await database.writeToEnd({ _ throws(Refusal) in throw Refusal(code: "not-allowed") }, storageError: storage)
        }
        #expect(own?.code == "not-allowed")
        try database.close()
        let closed = await #expect(throws: Refusal.self) {
            try await database.writeToEnd({ _ throws(Refusal) in 1 }, storageError: storage)
        }
        #expect(closed?.code == "storage")
        let cause = try #require(closed?.underlying as? DatabaseError, "the cause, not its text: \(String(describing: closed?.underlying))")
        #expect(cause.resultCode == .SQLITE_MISUSE, "a closed connection: \(cause)")
        // The same for a plain write and a read (on an open database: a closed one is not to be read).
        let open = try ServiceDatabase.inMemory(service: "test", migrations: ServiceDatabaseTests.migrations())
        let written = #expect(throws: Refusal.self) {
            try open.write({ db throws(Refusal) in
                do { try db.execute(sql: "INSERT INTO no_such_table VALUES (1)") } catch { throw Refusal(code: "unexpected") }
            }, storageError: storage)
        }
        #expect(written?.code == "unexpected", "the body's own error, as it is")
        let read = #expect(throws: Refusal.self) { try open.read({ db in try Int.fetchOne(db, sql: "SELECT * FROM no_such_table") }, storageError: storage) }
        #expect(read?.code == "storage")
        #expect((read?.underlying as? DatabaseError)?.resultCode == .SQLITE_ERROR, "\(String(describing: read?.underlying))")
    }
}
