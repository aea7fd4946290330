import FareLensBus
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import MetricsTestKit
import Testing

/// A service's event outbox (docs/bus.md, "A service's event outbox"), in
/// one process. Across a `kill -9` of a real process:
/// `FareLensWireTests/ProcessCrashTests.outboxPublisherKilled`.
@Suite("A service's event outbox")
struct EventOutboxTests {
    static let owner = "test"

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        migrations.registerEventOutbox(named: "test-001-event-outbox")
        return migrations
    }

    static func bus(_ metrics: TestMetrics = TestMetrics(), buffer: Int = 4096) -> MessageBus {
        var configuration = BusConfiguration()
        configuration.metricsFactory = metrics
        configuration.subscriberBufferSize = buffer
        return MessageBus(configuration: configuration)
    }

    static func outbox(_ database: ServiceDatabase, _ bus: MessageBus, batchSize: Int = 256, transport: TransportClock = .system) -> EventOutbox {
        EventOutbox(
            owner: owner, database: database, bus: bus, types: [PriceDropped.self, Tick.self], clock: ManualWallClock(), batchSize: batchSize,
            retryDelays: (.milliseconds(1), .milliseconds(4)), transport: transport, logger: quietLogger())
    }

    /// An in-memory database, a bus recording into `metrics`, and an outbox over both.
    static func inMemory(_ metrics: TestMetrics = TestMetrics()) throws -> (database: ServiceDatabase, bus: MessageBus, outbox: EventOutbox) {
        let database = try ServiceDatabase.inMemory(service: owner, migrations: migrations)
        let bus = Self.bus(metrics)
        return (database, bus, Self.outbox(database, bus))
    }

    /// Commits `events`, one transaction.
    static func commit(_ events: [PriceDropped], to outbox: EventOutbox, in database: ServiceDatabase, parent: RequestContext? = nil) throws {
        try database.writer.write { db in
            for event in events { try outbox.append(event, parent: parent, in: db) }
        }
    }

    static func waitUntilEmpty(_ database: ServiceDatabase) async throws {
        try await waitUntil("the outbox is empty") { (try? database.waitingEvents(limit: 1).isEmpty) == true }
    }

    struct RolledBack: Error {}

    @Test("committed events are published in commit order under <owner>.outbox#<instance> and the row's sequence, with their trace; a rolled-back transaction's never")
    func committedEventsOnly() async throws {
        let (database, bus, outbox) = try Self.inMemory()
        let subscription = bus.subscribe([PriceDropped.self, Tick.self])
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        let trace = TraceID.random()
        try await database.writer.write { db in
            try outbox.append(PriceDropped(route: "LIS-JFK", sequence: 1), parent: RequestContext(deadline: .now + .seconds(5), traceID: trace), in: db)
            try outbox.append(Tick(sequence: 1), in: db)
        }
        await #expect(throws: RolledBack.self) {
            try await database.writer.write { db in
                try outbox.append(PriceDropped(route: "LIS-JFK", sequence: 99), in: db)
                throw RolledBack()
            }
        }
        try Self.commit([PriceDropped(route: "LIS-JFK", sequence: 2)], to: outbox, in: database)

        let deliveries = try await withTimeLimit("three events arrived") {
            var received: [Delivery<any BusEvent>] = []
            for await delivery in subscription {
                received.append(delivery)
                if received.count == 3 { break }
            }
            return received
        }
        let instance = try database.eventOutboxInstance()
        #expect(deliveries.map(\.metadata.id.publisher) == Array(repeating: "test.outbox#\(instance)", count: 3))
        #expect(deliveries.map(\.metadata.id.sequence) == [1, 2, 3], "a rolled-back insert takes no sequence")
        #expect((deliveries[0].event as? PriceDropped)?.sequence == 1)
        #expect(deliveries[1].event is Tick)
        #expect((deliveries[2].event as? PriceDropped)?.sequence == 2, "event 99 was rolled back, so never published")
        #expect(deliveries[0].metadata.traceID == trace)
        try await Self.waitUntilEmpty(database)
    }

    @Test("an event of a type the outbox was not given is refused with unregistered-type, and its transaction rolls back")
    func unregisteredType() throws {
        let database = try ServiceDatabase.inMemory(service: Self.owner, migrations: Self.migrations)
        let outbox = EventOutbox(owner: Self.owner, database: database, bus: Self.bus(), types: [PriceDropped.self], clock: ManualWallClock(), logger: quietLogger())
        let error = #expect(throws: EventOutboxError.self) {
            try database.writer.write { db in
                try outbox.append(PriceDropped(route: "LIS-JFK", sequence: 1), in: db)
                try outbox.append(Tick(sequence: 1), in: db)
            }
        }
        #expect(error?.codeName == "unregistered-type")
        #expect(try database.waitingEvents(limit: 10).isEmpty)
    }

    @Test("a durable event's row stays until every local subscriber has consumed it; only then is it removed; the waiting gauge counts it")
    func removedAfterConsumption() async throws {
        let metrics = TestMetrics()
        let database = try ServiceDatabase.inMemory(service: Self.owner, migrations: Self.migrations)
        let bus = Self.bus(metrics)
        // One event a round, so settled rows are forgotten one at a time: with the default (64 at a time while a
        // later event is unsettled), a relay that published event 2 before event 1 settled kept row 1 until 2
        // settled too, and the wait for its removal below gave up (reproduced by sleeping before `next()`).
        let outbox = Self.outbox(database, bus, batchSize: 1)
        let subscription = bus.subscribe(PriceDropped.self)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        try Self.commit([PriceDropped(route: "OPO-LHR", sequence: 1)], to: outbox, in: database)
        try await withTimeLimit("the events arrived") {
            var iterator = subscription.makeAsyncIterator()
            let first = await iterator.next()
            #expect(first?.event.sequence == 1)
            // Held: this subscriber has not asked for the next event, so it is not done with this one.
            #expect(try database.waitingEvents(limit: 10).map(\.sequence) == [1])
            let gauge = try metrics.expectGauge("farelens_event_outbox_waiting", [("owner", Self.owner)])
            try await waitUntil("the gauge counts the held event") { gauge.lastValue == 1 }
            try Self.commit([PriceDropped(route: "OPO-LHR", sequence: 2)], to: outbox, in: database)
            let second = await iterator.next()
            #expect(second?.event.sequence == 2)
            // Asking for it settled event 1; event 2 is held now.
            try await waitUntil("event 1's row is removed") { (try? database.waitingEvents(limit: 10).map(\.sequence)) == [2] }
        }
        // Whatever wakes the relay next (here, iterating on) leaves the gauge at what waits once event 2 is done with.
        let rest = Task { for await _ in subscription {} }
        defer { rest.cancel() }
        try await waitUntil("the gauge reads 0 once nothing waits") { (try? metrics.expectGauge("farelens_event_outbox_waiting", [("owner", Self.owner)]).lastValue) == 0 }
    }

    @Test("published again after a crash between publish and removal (the database as it was then), each event keeps its id and an inbox consumer applies it once")
    func republishedWithTheSameIDs() async throws {
        let directory = NSTemporaryDirectory() + "farelens-outbox-\(UUID().uuidString)"
        let copy = directory + "/copy"
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let consumer = try ServiceDatabase.inMemory(service: "consumer", migrations: Self.migrations)
        let applied = Locked<[Int]>([])
        /// Applies what arrives through the inbox until `count` events arrived; returns their ids.
        func consume(_ subscription: EventSubscription<PriceDropped>, _ count: Int) async throws -> [EventID] {
            try await withTimeLimit("\(count) events arrived") {
                var ids: [EventID] = []
                for await delivery in subscription {
                    ids.append(delivery.metadata.id)
                    let sequence = delivery.event.sequence
                    if try consumer.applyOnce(InboxKey(delivery.metadata.id), consumer: "test", { _ in sequence }) != nil {
                        applied.update { $0.append(sequence) }
                    }
                    if ids.count == count { break }
                }
                return ids
            }
        }

        let database = try ServiceDatabase.open(service: Self.owner, directory: directory, migrations: Self.migrations)
        let firstBus = Self.bus()
        let firstSubscription = firstBus.subscribe(PriceDropped.self)
        let firstOutbox = Self.outbox(database, firstBus)
        try Self.commit((1 ... 5).map { PriceDropped(route: "MAD-BOS", sequence: $0) }, to: firstOutbox, in: database)
        try database.backup(to: copy + "/\(Self.owner).sqlite")
        let firstRelay = Task { await firstOutbox.run() }
        let firstIDs = try await consume(firstSubscription, 5)
        firstSubscription.cancel()
        try await Self.waitUntilEmpty(database)
        firstRelay.cancel()
        _ = await firstRelay.value
        try database.close()

        // The copy is the database of a process that died after publishing, before removing the rows.
        let reopened = try ServiceDatabase.open(service: Self.owner, directory: copy, migrations: Self.migrations)
        #expect(try reopened.waitingEvents(limit: 10).count == 5)
        let secondBus = Self.bus()
        let secondSubscription = secondBus.subscribe(PriceDropped.self)
        let secondOutbox = Self.outbox(reopened, secondBus)
        let secondRelay = Task { await secondOutbox.run() }
        defer { secondRelay.cancel() }
        let secondIDs = try await consume(secondSubscription, 5)
        #expect(secondIDs == firstIDs, "the same ids, though another bus (another publisher id) published them")
        #expect(secondBus.publisherID != firstBus.publisherID)
        #expect(applied.get() == [1, 2, 3, 4, 5], "each applied once")
        try await Self.waitUntilEmpty(reopened)
    }

    @Test("a publish the bus refuses (overloaded) is retried with backoff, in order, until accepted: nothing is dropped, and each retry is counted")
    func refusedIsRetried() async throws {
        let metrics = TestMetrics()
        let database = try ServiceDatabase.inMemory(service: Self.owner, migrations: Self.migrations)
        let bus = Self.bus(metrics)
        // The backoff waits on a clock the test moves: a retry happens when time does, never because real time passed.
        let clock = ManualWallClock()
        let outbox = Self.outbox(database, bus, transport: TransportClock(following: clock))
        let transport = RecordingTransport.refusing(1, times: 3)
        bus.attach(transport)
        try Self.commit((1 ... 4).map { PriceDropped(route: "DUB-ORD", sequence: $0) }, to: outbox, in: database)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        // Refused once, the relay waits out its first backoff (1 ms) on the clock; it offers nothing more until the clock moves.
        // Backoffs double, 1, 2, 4 ms, so each move of 4 ms is past the one the relay waits out.
        for refusals in 1 ... 3 {
            #expect(await clock.waitUntilSleeping(1), "the relay waits out its backoff after refusal \(refusals)")
            #expect(transport.offered.get() == Array(repeating: 1, count: refusals), "nothing offered again before the clock moved")
            clock.advance(by: 0.004)
        }
        try await Self.waitUntilEmpty(database)
        #expect(transport.offered.get() == [1, 1, 1, 1, 2, 3, 4], "event 1 three times refused, then accepted; the others after it, once each")
        #expect(try metrics.expectCounter("farelens_event_outbox_retries_total", [("owner", Self.owner)]).totalValue == 3)
        #expect(try metrics.expectCounter("farelens_event_outbox_published_total", [("owner", Self.owner)]).totalValue == 4)
    }

    @Test("a row no event type can be read from is skipped, logged and counted; the events after it are published")
    func undecodableRow() async throws {
        let metrics = TestMetrics()
        let (database, bus, outbox) = try Self.inMemory(metrics)
        let subscription = bus.subscribe(PriceDropped.self)
        try await database.writer.write { db in
            try EventOutboxRecord(typeName: "farelens.gone.Event", payload: Data([1, 2, 3]), traceHigh: 1, traceLow: 2, committedAtUnixMs: 0).insert(db)
        }
        try Self.commit([PriceDropped(route: "SFO-HND", sequence: 7)], to: outbox, in: database)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        let events = try await firstEvents(1, of: subscription)
        #expect(events.map(\.sequence) == [7])
        try await Self.waitUntilEmpty(database)
        #expect(try metrics.expectCounter("farelens_event_outbox_undecodable_total", [("owner", Self.owner)]).totalValue == 1)
    }

    @Test("many writers committing at once: every event is published exactly once, each writer's in its commit order, through small batches")
    func concurrentWriters() async throws {
        let directory = NSTemporaryDirectory() + "farelens-outbox-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try ServiceDatabase.open(service: Self.owner, directory: directory, migrations: Self.migrations)
        let bus = Self.bus(buffer: 64)
        let subscription = bus.subscribe(PriceDropped.self)
        let outbox = Self.outbox(database, bus, batchSize: 16)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        let writers = 8
        let perWriter = 100
        async let received = firstEvents(writers * perWriter, of: subscription)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0 ..< writers {
                group.addTask {
                    for sequence in 1 ... perWriter {
                        try Self.commit([PriceDropped(route: "writer-\(writer)", sequence: sequence)], to: outbox, in: database)
                    }
                }
            }
            try await group.waitForAll()
        }
        let events = try await received
        let byWriter = Dictionary(grouping: events, by: \.route).mapValues { $0.map(\.sequence) }
        #expect(byWriter.count == writers)
        #expect(byWriter.values.allSatisfy { $0 == Array(1 ... perWriter) }, "each writer's events once, in its order")
        try await Self.waitUntilEmpty(database)
        try database.close()
    }
}
