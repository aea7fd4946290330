import FareLensBus
import FareLensTesting
import Foundation
import Testing

/// Batches that gather (`settlingBatches(maximum:gathering:)`) and one
/// subscription to several types (`subscribe(_:)` with a list): what lets
/// events of different topics compete in one batch.
@Suite struct GatheringBatchesTests {
    /// The sequences of the first batch `batches` hands out, taken in a task of its own.
    static func firstBatch(of batches: SettlingDeliveryBatches<PriceDropped>) -> Task<[Int], Never> {
        Task {
            var iterator = batches.makeAsyncIterator()
            let batch = await iterator.next()
            batch?.settle()
            return batch?.deliveries.map(\.event.sequence) ?? []
        }
    }

    @Test("events that arrive while the batch gathers join it, and a full batch is handed out without waiting out the window")
    func lateEventsJoinTheBatch() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe(PriceDropped.self)
        // A minute: the batch is handed out because it is full, long before that.
        let first = Self.firstBatch(of: subscription.settlingBatches(maximum: 3, gathering: .seconds(60)))
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 1))
        // Taken by the consumer, which now gathers (without a window it would have handed it out alone).
        try await waitUntil("the first event taken") { subscription.bufferedCount == 0 }
        // The second alone does not fill the batch: it must not end the gathering, so it stays buffered
        // (given 200 ms to be taken wrongly; a slow machine can only make this miss a fault, never fail the test).
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 2))
        let giveUp = ContinuousClock.now + .milliseconds(200)
        while ContinuousClock.now < giveUp, subscription.bufferedCount == 1 {
            try await Task.sleep(for: .milliseconds(5))  // safe: polling, bounded by the 200 ms above
        }
        #expect(subscription.bufferedCount == 1)
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 3))
        #expect(try await withTimeLimit("the full batch") { await first.value } == [1, 2, 3])
    }

    @Test("a batch short of the maximum is handed out when the bus's clock passes its window, and not before: time moves only when the test moves it")
    func shortBatchAfterTheWindow() async throws {
        let manual = ManualWallClock()
        var configuration = BusConfiguration()
        configuration.clock = BusClock(following: manual)
        let bus = MessageBus(configuration: configuration)
        let subscription = bus.subscribe(PriceDropped.self)
        let handedOut = Locked(false)
        let batches = subscription.settlingBatches(maximum: 10, gathering: .milliseconds(50))
        let first = Task {
            let sequences = await Self.firstBatch(of: batches).value
            handedOut.set(true)
            return sequences
        }
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 1))
        // The window's timer waits on the clock: with one event of ten, nothing else can hand the batch out.
        // (The bound is for the consumer to be scheduled at all: in ops/test.sh's main phase a task once waited
        // over 10 s for a thread while bcrypt-heavy suites started. The clock does not move meanwhile.)
        #expect(await manual.waitUntilSleeping(1, limit: .seconds(60)), "the gathering window began")
        #expect(!handedOut.get())
        manual.advance(by: 0.049)
        #expect(manual.sleeping == 1 && !handedOut.get(), "49 ms of a 50 ms window: still gathering")
        manual.advance(by: 0.002)
        #expect(try await withTimeLimit("the short batch", limit: .seconds(60)) { await first.value } == [1])
    }

    @Test("a consumer cancelled while it gathers stops waiting and hands out what it has")
    func cancelledWhileGathering() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe(PriceDropped.self)
        let first = Self.firstBatch(of: subscription.settlingBatches(maximum: 10, gathering: .seconds(60)))
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 1))
        try await waitUntil("the first event taken") { subscription.bufferedCount == 0 }
        first.cancel()
        #expect(try await withTimeLimit("the cancelled gathering", limit: .seconds(10)) { await first.value } == [1])
    }

    @Test("without a window, a batch is what is buffered: nothing waits")
    func noWindowNoWait() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe(PriceDropped.self)
        let first = Self.firstBatch(of: subscription.settlingBatches(maximum: 2))
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 1))
        #expect(try await withTimeLimit("the batch", limit: .seconds(10)) { await first.value } == [1])
    }

    @Test("one subscription to several types receives each on its topic, in the order they were published, decodes them from other nodes, and asks other nodes for both topics")
    func severalTypesInOneQueue() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe([PriceDropped.self, Tick.self])
        #expect(bus.wantedTopics.isSuperset(of: [PriceDropped.topic.name, Tick.topic.name]))
        try await bus.publish(Tick(sequence: 1))
        try await bus.publish(PriceDropped(route: "JFK-NRT", sequence: 2))
        try await bus.publish(Tick(sequence: 3))
        // As from another node, encoded: the types were registered for decoding.
        try await bus.deliverEncodedEvent(
            typeName: PriceDropped.wireTypeName, payload: try PriceDropped(route: "LHR-JFK", sequence: 4).wireEncoded(), id: EventID(publisher: "far", sequence: 1),
            traceID: .random())
        let events = try await firstEvents(4, of: subscription, limit: .seconds(10))
        let described = events.map { event -> String in
            switch event {
            case let tick as Tick: "tick \(tick.sequence)"
            case let drop as PriceDropped: "drop \(drop.sequence)"
            default: "other"
            }
        }
        #expect(described == ["tick 1", "drop 2", "tick 3", "drop 4"])
    }
}
