import FareLensBus
import FareLensTesting
import Synchronization
import Testing

/// Two event types published on one topic.
private let sharedTopic = Topic("test.shared-topic")

private struct FareRose: BusEvent, JSONWireMessage, Equatable {
    static let topic = sharedTopic
    var sequence: Int
}

private struct FareFell: BusEvent, JSONWireMessage, Equatable {
    static let topic = sharedTopic
    var sequence: Int
}

/// Who receives an event: the bus works this out once per event type and
/// keeps it until a subscriber comes or goes (SubscriptionTable.audience).
@Suite("Event audiences")
struct EventAudienceTests {
    @Test("Typed subscribers on a shared topic get only their own type; a watcher of the topic gets both, in order")
    func typedAndWatching() async throws {
        let (bus, _) = makeBus()
        let rises = bus.subscribe(FareRose.self)
        let falls = bus.subscribe(FareFell.self)
        let watcher = bus.subscribeAll(watching: [sharedTopic.name])
        try await bus.publish(FareRose(sequence: 1))
        try await bus.publish(FareFell(sequence: 2))
        try await bus.publish(FareRose(sequence: 3))

        #expect(try await firstEvents(2, of: rises, limit: .seconds(10)) == [FareRose(sequence: 1), FareRose(sequence: 3)])
        #expect(rises.bufferedCount == 0)
        #expect(try await firstEvents(1, of: falls, limit: .seconds(10)) == [FareFell(sequence: 2)])
        #expect(falls.bufferedCount == 0)
        let heard = try await firstEvents(3, of: watcher, limit: .seconds(10))
        #expect(heard.map { ($0 as? FareRose)?.sequence ?? ($0 as? FareFell)?.sequence } == [1, 2, 3])
    }

    @Test("Subscribers joining and leaving between publishes: each gets exactly the events published while it was subscribed")
    func joinAndLeave() async throws {
        let (bus, _) = makeBus()
        try await bus.publish(Tick(sequence: 0))  // nobody listens: the audience is empty
        let first = bus.subscribe(Tick.self)
        try await bus.publish(Tick(sequence: 1))
        let second = bus.subscribe(Tick.self)
        try await bus.publish(Tick(sequence: 2))
        first.cancel()
        try await bus.publish(Tick(sequence: 3))
        second.cancel()
        try await bus.publish(Tick(sequence: 4))

        var firstGot: [Int] = []
        for await delivery in first { firstGot.append(delivery.event.sequence) }
        var secondGot: [Int] = []
        for await delivery in second { secondGot.append(delivery.event.sequence) }
        #expect(firstGot == [1, 2])
        #expect(secondGot == [2, 3])
    }

    @Test("A durable event buffered for a subscription that goes away is settled: the bus keeps no hold on the subscriber's queue")
    func leavingSubscriberSettles() async throws {
        let (bus, _) = makeBus()
        let settled = Atomic<Int>(0)
        var subscription: EventSubscription<PriceDropped>? = bus.subscribe(PriceDropped.self)
        let metadata = EventMetadata(
            id: EventID(publisher: "hub#1", sequence: 1), topic: PriceDropped.topic,
            typeName: PriceDropped.wireTypeName, traceID: TraceID(high: 1, low: 1)
        )
        await bus.deliverFromTransport(PriceDropped(route: "LHR-JFK", sequence: 1), metadata: metadata) {
            settled.add(1, ordering: .relaxed)
        }
        #expect(subscription?.bufferedCount == 1)
        #expect(settled.load(ordering: .relaxed) == 0)  // buffered, not yet handled
        subscription = nil  // the subscriber goes away without taking it
        #expect(settled.load(ordering: .relaxed) == 1)
    }
}
