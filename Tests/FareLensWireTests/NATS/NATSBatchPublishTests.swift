#if NATS
import FareLensBus
@testable import FareLensNATS
import FareLensTesting
import Logging
import Testing

/// A batch over NATS (`MessageBus.publish(batch:)`, an event outbox's
/// round): its durable events are in flight together, one wait for
/// JetStream's acknowledgements, against a real `nats-server`.
@Suite("Durable batches over NATS")
struct NATSBatchPublishTests {
    typealias Node = NATSTransportTests.Node

    static func batch(_ events: [PriceDropped]) -> [MessageBus.KeptIDEvent] {
        events.map { event in
            MessageBus.KeptIDEvent(
                event: event, id: EventID(publisher: "batch.outbox#1", sequence: UInt64(event.sequence)), traceID: TraceID.random(), onSettled: {})
        }
    }

    @Test("a batch's durable events are published together through the connection that gathers writes (many awaiting their acknowledgement at once, not one at a time), a lone event through the one that writes at once; each reaches another node once, in order")
    func inFlightTogether() async throws {
        let settings = NATSTransportTests.settings(try await TestNATSServer.shared())
        let publisher = try await Node(name: "publisher", settings: settings)
        defer { publisher.stop() }
        let receiver = try await Node(name: "receiver", settings: settings) { $0.subscribe(PriceDropped.self, bufferSize: 512) }
        defer { receiver.stop() }
        try await waitUntil("the publisher knows the receiver") { publisher.transport.knownNodes["receiver"] != nil }
        let (atOnce, gathering) = (publisher.transport.connection.publishes, publisher.transport.batchConnection.publishes)
        // A lone event is not kept waiting for libnats' flusher: written at once.
        try await publisher.bus.publish(PriceDropped(route: "LIS-BOS", sequence: 0))
        #expect(atOnce.mostWaiting == 1)
        #expect(gathering.mostWaiting == 0)
        let outcome = await publisher.bus.publish(batch: Self.batch((1 ... 300).map { PriceDropped(route: "LIS-BOS", sequence: $0) }))
        #expect(outcome == BatchOutcome(count: 300, refusal: nil))
        // One at a time (each publish awaiting its acknowledgement before the next), at most one would ever wait.
        #expect(gathering.mostWaiting > 1, "\(gathering.mostWaiting)")
        #expect(atOnce.mostWaiting == 1)
        #expect(try await receiver.receive(301).map(\.sequence) == Array(0 ... 300))
    }

    @Test("an event over max_payload ends the batch there: the outcome counts the events before it and says bad-message at once; the others were stored")
    func tooLargePartWay() async throws {
        let settings = NATSTransportTests.settings(try await TestNATSServer.shared())
        let lines = Locked<[String]>([])
        let publisher = try await Node(name: "publisher", settings: settings, logger: Logger(label: "publisher") { _ in CapturingLogHandler(lines: lines) })
        defer { publisher.stop() }
        let receiver = try await Node(name: "receiver", settings: settings) { $0.subscribe(PriceDropped.self, bufferSize: 64) }
        defer { receiver.stop() }
        try await waitUntil("the publisher knows the receiver") { publisher.transport.knownNodes["receiver"] != nil }
        let big = String(repeating: "x", count: 2 << 20)
        let events = [1, 2, 3, 4].map { PriceDropped(route: $0 == 3 ? big : "LIS-BOS", sequence: $0) }
        let outcome = await publisher.bus.publish(batch: Self.batch(events))
        #expect(outcome.count == 2)
        #expect(outcome.refusal?.kind == .badMessage, "\(String(describing: outcome.refusal))")
        #expect(outcome.refusal?.message.contains("max_payload") == true)
        // Not retried (for 15 s): no retry makes it fit.
        #expect(!lines.get().contains { $0.contains("retrying") }, "\(lines.get())")
        // 1, 2 and 4 were in flight together and stored; a marker after them.
        try await publisher.bus.publish(PriceDropped(route: "LIS-BOS", sequence: 5))
        #expect(try await receiver.receive(4).map(\.sequence) == [1, 2, 4, 5])
    }

    /// A publisher and a receiver (subscribing with `bufferSize`) on a
    /// server of their own; the server is killed (SIGKILL), `events` are
    /// published as one batch, and once the publisher retries what JetStream
    /// did not store, the server restarts on its data. `check` gets the
    /// batch's outcome, the receiver and the publisher.
    private func batchWhileServerAway(
        _ events: [PriceDropped], bufferSize: Int, check: (BatchOutcome, Node, Node) async throws -> Void
    ) async throws {
        let first = try await TestNATSServer.start()
        var restarted: TestNATSServer?
        defer { first.kill(); restarted?.kill() }
        let settings = NATSTransportTests.settings(first)
        let lines = Locked<[String]>([])
        let publisher = try await Node(name: "publisher", settings: settings, logger: Logger(label: "publisher") { _ in CapturingLogHandler(lines: lines) })
        defer { publisher.stop() }
        let receiver = try await Node(name: "receiver", settings: settings) { $0.subscribe(PriceDropped.self, bufferSize: bufferSize) }
        defer { receiver.stop() }
        try await waitUntil("the publisher knows the receiver") { publisher.transport.knownNodes["receiver"] != nil }
        first.kill()
        let publishing = Task { await publisher.bus.publish(batch: Self.batch(events)) }
        // No acknowledgement comes while the server is away: the publishes time out and are retried.
        try await waitUntil("the publisher retries what JetStream did not store") {
            lines.get().contains { $0.contains("JetStream did not store durable events; retrying") }
        }
        restarted = try await TestNATSServer.start(port: first.port, storeDirectory: first.storeDirectory)
        let outcome = await publishing.value
        #expect(outcome.refusal?.kind != .serviceUnavailable, "\(lines.get().suffix(5))")
        try await check(outcome, receiver, publisher)
    }

    @Test("a batch published while the server is down (killed with SIGKILL): JetStream's refusals are retried together once it is back on its data, the outcome counts every event, and another node receives each once")
    func serverKilledUnderABatch() async throws {
        let count = 400
        try await batchWhileServerAway((1 ... count).map { PriceDropped(route: "LIS-BOS", sequence: $0) }, bufferSize: 512) { outcome, receiver, _ in
            #expect(outcome == BatchOutcome(count: count, refusal: nil))
            let received = try await receiver.receive(count).map(\.sequence)
            #expect(received.sorted() == Array(1 ... count), "each once, none lost")
        }
    }

    @Test("an event over max_payload in a batch published while the server is down: the events before it are stored once the server is back, and the outcome still ends the batch at it (bad-message), never 'all stored'")
    func tooLargeWhileServerAway() async throws {
        let big = String(repeating: "x", count: 2 << 20)
        // 1, 2 and 4 are not acknowledged while the server is away; 3 is refused at once, and for good.
        let events = [1, 2, 3, 4].map { PriceDropped(route: $0 == 3 ? big : "LIS-BOS", sequence: $0) }
        try await batchWhileServerAway(events, bufferSize: 64) { outcome, receiver, publisher in
            #expect(outcome.count == 2)
            #expect(outcome.refusal?.kind == .badMessage, "\(String(describing: outcome.refusal))")
            #expect(outcome.refusal?.message.contains("max_payload") == true)
            // 1 and 2 were stored by the time the outcome came; a marker after them. 4 may be stored too, before or
            // between them (the client resent what it held when it reconnected; it is past the refused event, so not
            // retried); 3 never.
            try await publisher.bus.publish(PriceDropped(route: "LIS-BOS", sequence: 5))
            let subscription = try #require(receiver.subscription)
            let heard = try await withTimeLimit("the marker arrived") {
                var heard: [Int] = []
                for await delivery in subscription {
                    heard.append(delivery.event.sequence)
                    if delivery.event.sequence == 5 { break }
                }
                return heard
            }
            #expect(Set(heard).isSuperset(of: [1, 2]) && heard.last == 5 && !heard.contains(3), "\(heard)")
        }
    }
}
#endif
