import FareLensBus
import FareLensTesting
import Testing

/// `MessageBus.publish(batch:)`: what an event outbox's round publishes.
@Suite("Publishing a batch under kept ids")
struct BatchPublishTests {
    /// A transport without a batch forward of its own (the protocol's
    /// default: one event after another) that refuses event `refused`.
    final class OneByOneTransport: BusTransport {
        let refused: UInt64?
        let offered = Locked<[UInt64]>([])
        init(refusing refused: UInt64?) { self.refused = refused }
        func hosts(_ address: ServiceAddress) -> Bool { false }
        func send<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
            throw .serviceUnavailable(address)
        }
        func forward<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError) {
            offered.update { $0.append(metadata.id.sequence) }
            if metadata.id.sequence == refused { throw .overloaded("node far", limit: 1) }
        }
    }

    static func batch(_ sequences: ClosedRange<Int>, settled: Locked<[Int]>) -> [MessageBus.KeptIDEvent] {
        sequences.map { sequence in
            MessageBus.KeptIDEvent(
                event: PriceDropped(route: "FAO-EWR", sequence: sequence), id: EventID(publisher: "test.outbox#1", sequence: UInt64(sequence)),
                traceID: TraceID.random(), onSettled: { settled.update { $0.append(sequence) } })
        }
    }

    @Test("every local subscriber receives the batch in order, under the given ids; each event settles once consumed; the outcome counts them all")
    func localInOrder() async throws {
        let (bus, _) = makeBus(buffer: 64)
        let subscription = bus.subscribe(PriceDropped.self)
        let settled = Locked<[Int]>([])
        let outcome = await bus.publish(batch: Self.batch(1 ... 20, settled: settled))
        #expect(outcome == BatchOutcome(count: 20, refusal: nil))
        var received: [(Int, UInt64)] = []
        for await delivery in subscription {
            received.append((delivery.event.sequence, delivery.metadata.id.sequence))
            if received.count == 20 { break }
        }
        #expect(received.map(\.0) == Array(1 ... 20))
        #expect(received.map(\.1) == Array(1 ... 20))
        // The 20th is settled when the subscriber asks for the next one; ending the subscription does.
        _ = consume subscription
        try await waitUntil("all 20 settled") { settled.get().count == 20 }
        #expect(settled.get().sorted() == Array(1 ... 20))
    }

    @Test("a transport that refuses event k: the outcome counts the k-1 before it and carries the refusal's code; the default batch forward offers nothing after it")
    func refusedPartWay() async throws {
        let (bus, _) = makeBus(buffer: 64)
        let subscription = bus.subscribe(PriceDropped.self)
        let transport = OneByOneTransport(refusing: 4)
        bus.attach(transport)
        let outcome = await bus.publish(batch: Self.batch(1 ... 6, settled: Locked([])))
        #expect(outcome.count == 3)
        #expect(outcome.refusal?.kind == .overloaded)
        #expect(transport.offered.get() == [1, 2, 3, 4])
        // Local subscribers had the whole batch before any transport.
        #expect(try await firstEvents(6, of: subscription).map(\.sequence) == Array(1 ... 6))
    }
}
