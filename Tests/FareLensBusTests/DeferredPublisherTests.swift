import FareLensBus
import FareLensTesting
import Logging
import MetricsTestKit
import Testing

private struct Priced: BusEvent, JSONWireMessage, Equatable {
    static let topic = Topic("test.deferred-priced")
    var sequence: Int
}

/// The queue a handler publishes through without waiting (docs/bus.md,
/// "A DeferredPublisher's queue"): bounded, drained in order by `run()`,
/// and closed on shutdown.
@Suite("Deferred publisher")
struct DeferredPublisherTests {
    private func publisher(capacity: Int) -> (DeferredPublisher, MessageBus, TestMetrics, Locked<[String]>) {
        let (bus, metrics) = makeBus()
        let lines = Locked<[String]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        return (DeferredPublisher(bus: bus, owner: "test", capacity: capacity, logger: logger), bus, metrics, lines)
    }

    private func dropped(_ metrics: TestMetrics) throws -> Int64 {
        try metrics.expectCounter("farelens_bus_deferred_dropped_total", [("owner", "test")]).totalValue
    }

    @Test("a full queue refuses the event: false, counted as dropped, logged as a warning")
    func fullQueueRefuses() throws {
        let (publisher, _, metrics, lines) = publisher(capacity: 2)
        #expect(publisher.enqueue(Priced(sequence: 1)) && publisher.enqueue(Priced(sequence: 2)))
        #expect(!publisher.enqueue(Priced(sequence: 3)))
        #expect(publisher.pending == 2)
        #expect(try dropped(metrics) == 1)
        #expect(lines.get() == ["warning event not published: deferred queue full"])
    }

    @Test("run() publishes the queue in order; cancelled, it publishes what is still queued and returns")
    func drainsInOrder() async throws {
        let (publisher, bus, _, _) = publisher(capacity: 16)
        let heard = bus.subscribe(Priced.self, bufferSize: 16)
        for sequence in 1...3 { publisher.enqueue(Priced(sequence: sequence)) }
        let running = Task { await publisher.run() }
        #expect(try await firstEvents(3, of: heard, limit: .seconds(10)).map(\.sequence) == [1, 2, 3])
        publisher.enqueue(Priced(sequence: 4))
        running.cancel()
        try await withTimeLimit("run() returned after cancellation") { await running.value }
        #expect(try await firstEvents(1, of: heard, limit: .seconds(10)).map(\.sequence) == [4])
        #expect(publisher.pending == 0)
    }

    @Test("after finish() (the service stopping) an event is refused, counted as dropped and logged at debug, not as a full queue")
    func finishedRefusesQuietly() throws {
        let (publisher, _, metrics, lines) = publisher(capacity: 16)
        publisher.finish()
        #expect(!publisher.enqueue(Priced(sequence: 1)))
        #expect(publisher.pending == 0)
        #expect(try dropped(metrics) == 1)
        #expect(lines.get() == ["debug event not published: the service is stopping"])
    }
}

/// `DeferredPublisher` drains what waits as batches (`MessageBus.publish(queued:)`).
@Suite("Deferred publisher: batches")
struct DeferredPublisherBatchTests {
    @Test("what waits when run() looks goes to a transport as one batch (at most batchLimit), in order, each under an id of the bus's own")
    func queueDrainsAsBatches() async throws {
        let (bus, _) = makeBus()
        let transport = RecordingTransport()
        bus.attach(transport)
        let publisher = DeferredPublisher(bus: bus, owner: "test", capacity: 64, batchLimit: 16, logger: quietLogger())
        for sequence in 1 ... 40 { publisher.enqueue(PriceDropped(route: "OPO-SFO", sequence: sequence)) }
        publisher.finish()
        try await withTimeLimit("run() published the queue and returned") { await publisher.run() }
        #expect(transport.batches.get() == [16, 16, 8])
        #expect(transport.offered.get() == Array(1 ... 40), "in order, under the bus's own sequence")
    }

    @Test("an event a transport refuses in the middle of a batch is counted and logged, and the events after it are still forwarded; local subscribers hear each once")
    func refusalDoesNotHoldTheRest() async throws {
        let (bus, metrics) = makeBus()
        let heard = bus.subscribe(PriceDropped.self, bufferSize: 16)
        let transport = RecordingTransport.refusing(3, times: 1)
        bus.attach(transport)
        let lines = Locked<[String]>([])
        let publisher = DeferredPublisher(bus: bus, owner: "test", capacity: 16, logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) })
        for sequence in 1 ... 5 { publisher.enqueue(PriceDropped(route: "OPO-SFO", sequence: sequence)) }
        publisher.finish()
        try await withTimeLimit("run() published the queue and returned") { await publisher.run() }
        #expect(transport.offered.get() == [1, 2, 3, 4, 5], "3 refused, 4 and 5 forwarded after it; none twice")
        #expect(transport.batches.get() == [5, 2])
        #expect(try metrics.expectCounter("farelens_bus_deferred_refused_total", [("owner", "test")]).totalValue == 1)
        #expect(lines.get() == ["warning event not published"])
        #expect(try await firstEvents(5, of: heard, limit: .seconds(10)).map(\.sequence) == [1, 2, 3, 4, 5])
        // Nothing more: a sixth event, once published, is the next one heard.
        let again = DeferredPublisher(bus: bus, owner: "test", capacity: 16, logger: quietLogger())
        again.enqueue(PriceDropped(route: "OPO-SFO", sequence: 6))
        again.finish()
        await again.run()
        #expect(try await firstEvents(1, of: heard, limit: .seconds(10)).map(\.sequence) == [6])
    }
}
