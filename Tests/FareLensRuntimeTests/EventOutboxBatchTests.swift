import FareLensBus
@testable import FareLensServiceKit
import FareLensStore
import FareLensTesting
import MetricsTestKit
import Testing

/// An event outbox hands each round's events to the transports as one batch
/// (over NATS: all in flight together, one wait for JetStream's
/// acknowledgements), and a batch refused part-way resumes at the refused
/// event. Over a real NATS server: `NATSBatchPublishTests`.
@Suite("An event outbox's rounds as batches")
struct EventOutboxBatchTests {
    @Test("a round's events reach a transport as one batch, not one call each")
    func roundIsOneBatch() async throws {
        let database = try ServiceDatabase.inMemory(service: EventOutboxTests.owner, migrations: EventOutboxTests.migrations)
        let bus = EventOutboxTests.bus()
        let transport = RecordingTransport()
        bus.attach(transport)
        let outbox = EventOutboxTests.outbox(database, bus)
        // Committed before the relay starts: its first round reads all 40 (batches of 256).
        try EventOutboxTests.commit((1 ... 40).map { PriceDropped(route: "OPO-BOS", sequence: $0) }, to: outbox, in: database)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        try await EventOutboxTests.waitUntilEmpty(database)
        #expect(transport.batches.get() == [40])
        #expect(transport.offered.get() == Array(1 ... 40))
    }

    @Test("a batch refused part-way: the events before the refused one count as published, and the next round starts at it; none skipped, none offered twice before it")
    func refusedPartWay() async throws {
        let metrics = TestMetrics()
        let database = try ServiceDatabase.inMemory(service: EventOutboxTests.owner, migrations: EventOutboxTests.migrations)
        let bus = EventOutboxTests.bus(metrics)
        let subscription = bus.subscribe(PriceDropped.self)
        let clock = ManualWallClock()
        let outbox = EventOutboxTests.outbox(database, bus, transport: TransportClock(following: clock))
        let transport = RecordingTransport.refusing(3, times: 1)
        bus.attach(transport)
        try EventOutboxTests.commit((1 ... 5).map { PriceDropped(route: "OPO-BOS", sequence: $0) }, to: outbox, in: database)
        let relay = Task { await outbox.run() }
        defer { relay.cancel() }
        #expect(await clock.waitUntilSleeping(1), "the relay waits out its backoff after the refusal")
        #expect(transport.offered.get() == [1, 2, 3], "the batch stopped at the refused event")
        clock.advance(by: 0.004)
        // Local subscribers had the whole first batch before the transport refused part of it: 3, 4 and 5 come twice, under the same ids.
        let events = try await firstEvents(8, of: subscription)
        #expect(events.map(\.sequence) == [1, 2, 3, 4, 5, 3, 4, 5])
        // A durable event's row goes once the subscriber consumed it: ending the subscription lets the last go.
        _ = consume subscription
        try await EventOutboxTests.waitUntilEmpty(database)
        #expect(transport.offered.get() == [1, 2, 3, 3, 4, 5], "resumed at event 3: 1 and 2 not again, 4 and 5 once")
        #expect(transport.batches.get() == [5, 3])
        #expect(try metrics.expectCounter("farelens_event_outbox_published_total", [("owner", EventOutboxTests.owner)]).totalValue == 5)
        #expect(try metrics.expectCounter("farelens_event_outbox_retries_total", [("owner", EventOutboxTests.owner)]).totalValue == 1)
    }

    @Test("a settlement that comes after its row was forgotten (a copy published again after a refusal) is not kept")
    func lateSettlementNotKept() {
        let (_, wake) = AsyncStream.makeStream(of: Void.self)
        let settled = SettledSequences(wake: wake)
        for sequence in Int64(1) ... 3 { settled.settle(sequence) }
        #expect(settled.settledPrefixCount(of: [1, 2, 3, 4]) == 3)
        settled.forget([1, 2, 3])
        settled.settle(2)
        settled.settle(3)
        #expect(settled.keptCount == 0)
        settled.settle(4)
        #expect(settled.keptCount == 1)
    }
}
