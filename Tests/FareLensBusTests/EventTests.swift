import FareLensBus
import FareLensTesting
import Testing

@Suite("Publish/subscribe")
struct EventTests {
    @Test("Events reach a subscriber in the order one publisher published them")
    func fifoPerPublisher() async throws {
        let (bus, _) = makeBus(buffer: 64)
        let subscription = bus.subscribe(PriceDropped.self)
        let count = 5_000
        let consumer = Task {
            var received: [Int] = []
            for await delivery in subscription {
                received.append(delivery.event.sequence)
                if received.count == count { break }
            }
            return received
        }
        for sequence in 0..<count { try await bus.publish(PriceDropped(route: "LHR-JFK", sequence: sequence)) }
        #expect(await consumer.value == Array(0..<count))
    }

    @Test("A wildcard subscriber hears every topic")
    func wildcardHearsAll() async throws {
        let (bus, _) = makeBus()
        let everything = bus.subscribeAll()
        try await bus.publish(Tick(sequence: 1))
        try await bus.publish(PriceDropped(route: "CDG-NRT", sequence: 2))
        var iterator = everything.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        #expect(first.metadata.topic == Tick.topic)
        #expect((first.event as? Tick)?.sequence == 1)
        #expect(second.metadata.topic == PriceDropped.topic)
        #expect((second.event as? PriceDropped)?.route == "CDG-NRT")
    }

    @Test("A droppable topic drops events a full subscriber cannot take, and counts them")
    func droppableDropsAndCounts() async throws {
        let (bus, metrics) = makeBus()
        let subscription = bus.subscribe(Tick.self, bufferSize: 3)
        for sequence in 0..<10 { try await bus.publish(Tick(sequence: sequence)) }  // returns: never waits
        #expect(subscription.bufferedCount == 3)
        let dropped = try metrics.expectCounter("farelens_bus_events_dropped_total", [("topic", Tick.topic.name)])
        #expect(dropped.totalValue == 7)
        var iterator = subscription.makeAsyncIterator()
        #expect(await iterator.next()?.event.sequence == 0)
    }

    @Test("A durable topic makes the publisher wait for room instead of dropping")
    func durableBackpressure() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe(PriceDropped.self, bufferSize: 1)
        try await bus.publish(PriceDropped(route: "A", sequence: 0))
        let published = FareLensTesting.Counter()
        let publisher = Task {
            try await bus.publish(PriceDropped(route: "A", sequence: 1))
            published.add()
        }
        for _ in 0..<200 { await Task.yield() }
        #expect(published.value == 0)  // still waiting: the buffer holds one event
        var iterator = subscription.makeAsyncIterator()
        #expect(await iterator.next()?.event.sequence == 0)
        try await publisher.value
        #expect(published.value == 1)
        #expect(await iterator.next()?.event.sequence == 1)
    }

    @Test("A durable subscriber drops a redelivered event it already has")
    func durableDedupe() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe(PriceDropped.self)
        let metadata = EventMetadata(
            id: EventID(publisher: "hub#1", sequence: 7), topic: PriceDropped.topic,
            typeName: PriceDropped.wireTypeName, traceID: TraceID(high: 1, low: 2)
        )
        await bus.deliverFromTransport(PriceDropped(route: "X", sequence: 7), metadata: metadata)
        await bus.deliverFromTransport(PriceDropped(route: "X", sequence: 7), metadata: metadata)
        #expect(subscription.bufferedCount == 1)
    }

    @Test("Events published before subscribing are not delivered; cancelling ends the sequence")
    func subscriptionLifetime() async throws {
        let (bus, _) = makeBus()
        try await bus.publish(Tick(sequence: 0))
        let subscription = bus.subscribe(Tick.self)
        try await bus.publish(Tick(sequence: 1))
        subscription.cancel()
        var received: [Int] = []
        for await delivery in subscription { received.append(delivery.event.sequence) }
        #expect(received == [1])
        #expect(!bus.subscribedTopics.contains(Tick.topic.name))
    }

    @Test("Every event gets a unique, increasing id from its publisher")
    func eventIDs() async throws {
        let (bus, _) = makeBus()
        let subscription = bus.subscribe(Tick.self)
        for sequence in 0..<3 { try await bus.publish(Tick(sequence: sequence)) }
        var iterator = subscription.makeAsyncIterator()
        var ids: [EventID] = []
        for _ in 0..<3 { ids.append(try #require(await iterator.next()).metadata.id) }
        #expect(ids.map(\.sequence) == [1, 2, 3])
        #expect(Set(ids.map(\.publisher)) == [bus.publisherID])
    }
}
