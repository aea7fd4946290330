import FareLensBus
@testable import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Logging
import Testing

/// An event outbox over a service's own table (``EventOutboxStore``), fed
/// at commit (``EventOutbox/committed(first:count:in:event:)``): published
/// from memory while the relay keeps up, from the store after a restart or
/// once its memory overflowed, each event once and in order either way.
@Suite("An event outbox over a service's own table")
struct EventOutboxStoreTests {
    /// A store whose "table" is an array of sequences, counting its reads.
    final class ArrayStore: EventOutboxStore {
        let rows = Locked<[Int64]>([])
        let reads = Locked(0)
        /// The last read: the last sequence it found (or the one it read after, finding none), and whether
        /// it found fewer rows than it could take (all there were).
        let lastRead = Locked<(through: Int64, foundAll: Bool)?>(nil)
        let settled: Locked<Int64>

        init(settledThrough: Int64 = 0) { settled = Locked(settledThrough) }

        func instance() async throws(StoreError) -> String { "fixed" }
        func settledThrough() async throws(StoreError) -> Int64 { settled.get() }
        func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [OutboxEvent] {
            reads.update { $0 += 1 }
            let found = rows.get().filter { $0 > sequence }.prefix(limit)
            lastRead.set((found.last ?? sequence, found.count < limit))
            return found.map(Self.event)
        }
        func forget(through sequence: Int64) async throws(StoreError) { settled.update { $0 = max($0, sequence) } }

        static func event(_ sequence: Int64) -> OutboxEvent {
            OutboxEvent(sequence: sequence, traceID: TraceID.random(), typeName: PriceDropped.wireTypeName) {
                PriceDropped(route: "LIS-OPO", sequence: Int(sequence))
            }
        }
    }

    /// Commits rows `sequences` to `store` in one transaction of `queue`, handing them to `outbox`.
    static func commit(_ sequences: ClosedRange<Int64>, _ store: ArrayStore, _ outbox: EventOutbox, _ queue: DatabaseQueue) throws {
        try queue.write { db in
            store.rows.update { $0.append(contentsOf: sequences) }
            outbox.committed(first: sequences.lowerBound, count: sequences.count, in: db) { ArrayStore.event(sequences.lowerBound + Int64($0)) }
        }
    }

    /// The sequences of the first `count` events `subscription` receives, each consumed.
    static func received(_ count: Int, _ subscription: EventSubscription<PriceDropped>) async throws -> [Int] {
        try await withTimeLimit("\(count) events arrived") {
            var sequences: [Int] = []
            for await delivery in subscription {
                sequences.append(delivery.event.sequence)
                if sequences.count == count { break }
            }
            return sequences
        }
    }

    static func outbox(_ store: ArrayStore, _ bus: MessageBus, batchSize: Int) -> EventOutbox {
        EventOutbox(owner: "test", store: store, bus: bus, batchSize: batchSize, forgetEvery: batchSize, retryDelays: (.milliseconds(1), .milliseconds(4)), logger: quietLogger())
    }

    @Test("kept up with, the relay reads its store once (where the last run left off) and publishes every later commit from memory, in order; settled, the store forgets them")
    func publishedFromMemory() async throws {
        let store = ArrayStore(settledThrough: 2)
        store.rows.set([1, 2, 3])  // 1 and 2 settled by an earlier run; 3 committed but not
        let bus = EventOutboxTests.bus()
        let subscription = bus.subscribe(PriceDropped.self)
        let outbox = Self.outbox(store, bus, batchSize: 8)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        #expect(try await Self.received(1, subscription) == [3])
        let queue = try DatabaseQueue()
        for first in stride(from: Int64(4), through: 40, by: 4) { try Self.commit(first ... first + 3, store, outbox, queue) }  // 4 … 43
        #expect(try await Self.received(40, subscription) == Array(4 ... 43))
        #expect(store.reads.get() == 1)
        subscription.cancel()
        try await waitUntil("the store forgets all 43") { store.settled.get() == 43 }
    }

    @Test("once its memory overflows (a relay far behind), the relay reads the store until it has caught up, then memory again: each event once, in order")
    func overflowReadsTheStore() async throws {
        let store = ArrayStore()
        let bus = EventOutboxTests.bus(buffer: 16)
        let subscription = bus.subscribe(PriceDropped.self)
        let outbox = Self.outbox(store, bus, batchSize: 2)  // memory holds 2 × 64 = 128 events
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        try await waitUntil("the relay made its first read") { store.reads.get() == 1 }
        let queue = try DatabaseQueue()
        try Self.commit(1 ... 100, store, outbox, queue)
        try Self.commit(101 ... 200, store, outbox, queue)  // 200 > 128: memory emptied
        #expect(try await Self.received(200, subscription) == Array(1 ... 200))
        // Caught up once a read reached the 200th and found nothing after it (the read after 199 may find
        // just 200: fewer than it could take): on a loaded machine that read came after the next commit when
        // the test did not wait for it, and the relay then read those 10 from the store. (Waiting for a read
        // past the 200th itself gave up when the catching-up read was the one after 199.)
        try await waitUntil("the relay caught up with the store") { store.lastRead.get().map { $0.through >= 200 && $0.foundAll } ?? false }
        let readsAfterOverflow = store.reads.get()
        #expect(readsAfterOverflow > 1)
        try Self.commit(201 ... 210, store, outbox, queue)
        #expect(try await Self.received(10, subscription) == Array(201 ... 210))
        #expect(store.reads.get() == readsAfterOverflow, "caught up, it publishes from memory again")
    }

    @Test("the memory queue skips what the store already gave, takes chunks in part, and answers nil once emptied for want of room")
    func queueTakes() {
        let queue = CommittedEventQueue(limit: 10)
        queue.append(first: 1, count: 4) { ArrayStore.event(1 + Int64($0)) }
        queue.append(first: 5, count: 4) { ArrayStore.event(5 + Int64($0)) }
        let generation = queue.generation
        #expect(queue.take(after: 2, limit: 3, generation: generation)?.map(\.sequence) == [3, 4, 5])
        #expect(queue.take(after: 5, limit: 10, generation: generation)?.map(\.sequence) == [6, 7, 8])
        #expect(queue.take(after: 8, limit: 10, generation: generation)?.isEmpty == true)
        queue.append(first: 9, count: 6) { ArrayStore.event(9 + Int64($0)) }
        queue.append(first: 15, count: 5) { ArrayStore.event(15 + Int64($0)) }  // 11 > 10: emptied
        #expect(queue.take(after: 8, limit: 10, generation: generation) == nil)
        #expect(queue.generation == generation + 1)
        #expect(queue.take(after: 8, limit: 10, generation: queue.generation)?.isEmpty == true)
    }

    @Test("stopped while its store refuses work (a database refuses a cancelled task's), the relay logs no error: the next run forgets the settled events")
    func stopLogsNoError() async throws {
        /// Forgetting waits at a gate, then fails as GRDB fails a cancelled task's write.
        final class StoppingStore: EventOutboxStore {
            let inner = ArrayStore()
            let gate = Gate()
            func instance() async throws(StoreError) -> String { "fixed" }
            func settledThrough() async throws(StoreError) -> Int64 { try await inner.settledThrough() }
            func events(after sequence: Int64, limit: Int) async throws(StoreError) -> [OutboxEvent] { try await inner.events(after: sequence, limit: limit) }
            func forget(through sequence: Int64) async throws(StoreError) {
                await gate.wait()
                if Task.isCancelled { throw .writeFailed(":memory:", "CancellationError()") }
                try await inner.forget(through: sequence)
            }
        }
        let store = StoppingStore()
        let lines = Locked<[String]>([])
        let bus = EventOutboxTests.bus()
        let subscription = bus.subscribe(PriceDropped.self)
        let outbox = EventOutbox(
            owner: "test", store: store, bus: bus, batchSize: 8, forgetEvery: 8, retryDelays: (.milliseconds(1), .milliseconds(4)),
            logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) })
        let relay = Task { await outbox.run() }
        try Self.commit(1 ... 3, store.inner, outbox, try DatabaseQueue())
        #expect(try await Self.received(3, subscription) == [1, 2, 3])
        try await store.gate.waitForArrivals(1)  // settled: the relay forgets them, and waits at the gate
        relay.cancel()
        store.gate.open()
        await relay.value
        #expect(store.inner.settled.get() == 0, "not forgotten: the next run does it")
        #expect(lines.get().filter { $0.hasPrefix("error") } == [])
        #expect(lines.get().contains { $0.hasPrefix("debug event outbox cannot remove published events") })
    }
}
