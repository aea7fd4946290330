import FareLensBus
import FareLensTesting
import Testing

/// The bus's event guarantees, in one process and split over a socket.
@Suite("Events in both shapes")
struct MeshEventTests {
    @Test("durable events all arrive, in publish order, at a subscriber on the other side", arguments: MeshShape.allCases)
    func durableEventsArriveInOrder(shape: MeshShape) async throws {
        let box = Locked<EventSubscription<PriceDropped>?>(nil)
        try await withTestMesh(shape) { _, client in
            box.set(client.subscribe(PriceDropped.self, bufferSize: 16))
        } body: { mesh in
            let subscription = try #require(box.get())
            let count = 500
            async let publishing: Void = {
                for sequence in 1 ... count { try await mesh.serverBus.publish(PriceDropped(route: "LIS-NYC", sequence: sequence)) }
            }()
            var received: [Int] = []
            for await delivery in subscription {
                received.append(delivery.event.sequence)
                if received.count == count { break }
            }
            try await publishing
            #expect(received == Array(1 ... count))
        }
    }

    @Test("events published on the spoke reach a subscriber on the hub, FIFO", arguments: MeshShape.allCases)
    func eventsFlowBothWays(shape: MeshShape) async throws {
        let box = Locked<EventSubscription<Tick>?>(nil)
        try await withTestMesh(shape) { server, _ in
            box.set(server.subscribe(Tick.self))
        } body: { mesh in
            let subscription = try #require(box.get())
            for sequence in 1 ... 100 { try await mesh.clientBus.publish(Tick(sequence: sequence)) }
            var received: [Int] = []
            for await delivery in subscription {
                received.append(delivery.event.sequence)
                if received.count == 100 { break }
            }
            #expect(received == Array(1 ... 100))
        }
    }

    @Test("a wildcard subscriber hears every topic from the other side", arguments: MeshShape.allCases)
    func wildcardHearsAll(shape: MeshShape) async throws {
        let box = Locked<EventSubscription<any BusEvent>?>(nil)
        try await withTestMesh(shape) { server, client in
            box.set(client.subscribeAll())
            // The wildcard side must know the types it may receive.
            client.registerEventTypes([Tick.self, PriceDropped.self])
        } body: { mesh in
            let subscription = try #require(box.get())
            try await mesh.serverBus.publish(Tick(sequence: 1))
            try await mesh.serverBus.publish(PriceDropped(route: "A-B", sequence: 1))
            var topics: [String] = []
            for await delivery in subscription {
                topics.append(delivery.metadata.topic.name)
                if topics.count == 2 { break }
            }
            // Both topics, in either order: the bus orders nothing between
            // topics (docs/bus.md, "Not guaranteed"), and over NATS a durable
            // event takes JetStream's path, a plain one core NATS's.
            #expect(Set(topics) == ["test.tick", "test.price-dropped"])
        }
    }

    @Test("an event keeps its publisher's id and trace across the hop", arguments: MeshShape.allCases)
    func identityCrosses(shape: MeshShape) async throws {
        let box = Locked<EventSubscription<PriceDropped>?>(nil)
        try await withTestMesh(shape) { _, client in
            box.set(client.subscribe(PriceDropped.self))
        } body: { mesh in
            let subscription = try #require(box.get())
            let parent = RequestContext(deadline: .now + .seconds(1), traceID: TraceID(high: 1, low: 2))
            try await mesh.serverBus.publish(PriceDropped(route: "A-B", sequence: 9), parent: parent)
            var iterator = subscription.makeAsyncIterator()
            let delivery = try #require(await iterator.next())
            #expect(delivery.metadata.id.publisher == mesh.serverBus.publisherID)
            #expect(delivery.metadata.id.sequence == 1)
            #expect(delivery.metadata.traceID == TraceID(high: 1, low: 2))
        }
    }
}
