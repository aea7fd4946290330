import FareLensBus
import FareLensTesting
@testable import FareLensWire
import PropertyBased
import Testing

/// The split shape of DurableDeliveryPropertyTests: durable events published
/// by concurrent tasks on one spoke, relayed by the hub to another spoke,
/// arrive exactly once at every subscriber, and each is acknowledged back to
/// its publisher only after every subscriber on every node has consumed it.
@Suite("Durable relay spoke → hub → spoke, generated cases", .serialized)
struct DurableRelayPropertyTests {
    @Test("Concurrent publishers on a spoke: every durable event reaches subscribers on the hub and on another spoke exactly once, FIFO per task, and every acknowledgement comes home")
    func relayedExactlyOnce() async {
        await propertyCheck(
            count: 8,
            input: Gen.int(in: 1 ... 6), Gen.int(in: 1 ... 300), Gen.element(of: [1, 4, 64, 4096]).map { $0 ?? 1 }, Gen.bool
        ) { publishers, perPublisher, bufferSize, wildcard in
            do {
                try await Self.check(publishers: publishers, perPublisher: perPublisher, bufferSize: bufferSize, wildcard: wildcard)
            } catch {
                Issue.record("\(publishers) publishers × \(perPublisher), buffer \(bufferSize), wildcard \(wildcard): \(error)")
            }
        }
    }

    @Test("The reported case across the socket: 4 publishers × 2000 events into buffers of 4 all arrive")
    func reportedCaseRelayed() async throws {
        try await Self.check(publishers: 4, perPublisher: 2000, bufferSize: 4, wildcard: true)
    }

    @Test("A relayed event is acknowledged to its publisher only when the subscriber on the far spoke has consumed it")
    func acknowledgementChain() async throws {
        let mesh = try await RelayedEvents.start(bufferSize: 8, events: 5)
        let (near, far) = (mesh.near, mesh.far)
        let hub = mesh.hub
        // Delivered, not consumed: nothing is acknowledged anywhere along the chain.
        #expect(near.pendingDurableEvents == 5)
        #expect(hub.meshStatus().nodes.first { $0.nodeName == "far" }?.pendingDurableEvents == 5)

        var iterator = far.makeAsyncIterator()
        for expected in 1 ... 3 { #expect(await iterator.next()?.event.sequence == expected) }
        // Asking for the fourth settled the first three: their acknowledgements travel far → hub → near.
        #expect(await iterator.next()?.event.sequence == 4)
        try await waitUntil("three acknowledgements reached the publisher") { near.pendingDurableEvents == 2 }
        #expect(await iterator.next()?.event.sequence == 5)
        far.cancel()
        #expect(await iterator.next() == nil)  // the sequence ends; asking settled the fifth
        try await waitUntil("every acknowledgement reached the publisher") { near.pendingDurableEvents == 0 }
        #expect(hub.meshStatus().nodes.first { $0.nodeName == "far" }?.pendingDurableEvents == 0)
        await mesh.stop()
    }

    @Test("Consumed in batches, a relayed event is acknowledged only when the consumer asks for the batch after its own")
    func batchAcknowledgement() async throws {
        let mesh = try await RelayedEvents.start(bufferSize: 16, events: 5)
        let (near, far) = (mesh.near, mesh.far)
        var batches = far.batches(maximum: 3).makeAsyncIterator()
        #expect(await batches.next()?.map(\.event.sequence) == [1, 2, 3])
        // Handed out, not yet done with: nothing is acknowledged.
        try await Task.sleep(for: .milliseconds(50))  // safe: gives a wrong early acknowledgement time to arrive; the check below is an equality, not a timing
        #expect(near.pendingDurableEvents == 5)
        #expect(await batches.next()?.map(\.event.sequence) == [4, 5])
        try await waitUntil("the first batch's acknowledgements reached the publisher") { near.pendingDurableEvents == 2 }
        far.cancel()
        #expect(await batches.next() == nil)
        try await waitUntil("every acknowledgement reached the publisher") { near.pendingDurableEvents == 0 }
        await mesh.stop()
    }

    @Test("a settling batch is acknowledged when the consumer settles it, not when the next batch is handed out; one dropped unsettled while the bus runs counts as done")
    func settlingBatchAcknowledgement() async throws {
        let mesh = try await RelayedEvents.start(bufferSize: 16, events: 7)
        let (near, far) = (mesh.near, mesh.far)
        var batches = far.settlingBatches(maximum: 3).makeAsyncIterator()
        #expect(batches.hasWaitingDeliveries)
        let first = try #require(await batches.next())
        let second = try #require(await batches.next())
        #expect(first.deliveries.map(\.event.sequence) == [1, 2, 3])
        #expect(second.deliveries.map(\.event.sequence) == [4, 5, 6])
        // Both handed out, neither settled: nothing is acknowledged.
        try await Task.sleep(for: .milliseconds(50))  // safe: gives a wrong early acknowledgement time to arrive; the check below is an equality, not a timing
        #expect(near.pendingDurableEvents == 7)
        second.settle()
        try await waitUntil("the second batch's acknowledgements reached the publisher") { near.pendingDurableEvents == 4 }
        #expect(!first.isSettled && second.isSettled)
        first.settle()
        first.settle()  // a second call does nothing
        try await waitUntil("the first batch's acknowledgements reached the publisher") { near.pendingDurableEvents == 1 }
        // The last batch, dropped unsettled while the bus runs: given up, which counts as done.
        var third = await batches.next()
        #expect(third?.deliveries.map(\.event.sequence) == [7])
        #expect(!batches.hasWaitingDeliveries)
        third = nil
        try await waitUntil("the dropped batch counted as done") { near.pendingDurableEvents == 0 }
        await mesh.stop()
    }

    static func check(publishers: Int, perPublisher: Int, bufferSize: Int, wildcard: Bool) async throws {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let onHub = hubBus.subscribe(PriceDropped.self, bufferSize: bufferSize)
        let (_, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let farBus = makeNodeBus("far")
        let typed = farBus.subscribe(PriceDropped.self, bufferSize: bufferSize)
        let all = wildcard ? farBus.subscribeAll(bufferSize: bufferSize) : nil
        let (_, farTask) = try await startSpoke(farBus, fastBridge(socket), name: "far")
        let nearBus = makeNodeBus("near")
        let (near, nearTask) = try await startSpoke(nearBus, fastBridge(socket), name: "near")
        defer { for task in [nearTask, farTask, hubTask] { task.cancel() } }
        try await waitUntil("the publisher knows the topic is wanted") { near.remoteTopicsForTesting.contains(PriceDropped.topic.name) }

        let consumers = [
            Task { try await eventsUntilEndMarker(onHub) { $0 } },
            Task { try await eventsUntilEndMarker(typed) { $0 } },
        ] + (all.map { all in [Task { try await eventsUntilEndMarker(all) { $0 as? PriceDropped } }] } ?? [])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for publisher in 0 ..< publishers {
                group.addTask {
                    for sequence in 0 ..< perPublisher { try await nearBus.publish(PriceDropped(route: "P\(publisher)", sequence: sequence)) }
                }
            }
            try await group.waitForAll()
        }
        try await nearBus.publish(PriceDropped(route: "end", sequence: 0))
        for consumer in consumers {
            let received = try await consumer.value
            #expect(received.count == publishers * perPublisher)
            #expect(Set(received.map { "\($0.route)/\($0.sequence)" }).count == received.count, "an event arrived twice")
            for publisher in 0 ..< publishers {
                let sequences = received.filter { $0.route == "P\(publisher)" }.map(\.sequence)
                #expect(sequences == Array(0 ..< perPublisher), "publisher \(publisher) out of order or incomplete")
            }
        }
        for subscription in [onHub, typed] { subscription.cancel() }
        all?.cancel()
        try await waitUntil("every acknowledgement reached the publisher") { near.pendingDurableEvents == 0 }
        for task in [nearTask, farTask, hubTask] { task.cancel(); _ = await task.result }
    }
}

/// A publisher on one spoke ("near") and a subscriber on another ("far"),
/// through a hub, with `events` PriceDropped events (sequences 1…events)
/// published and waiting, unacknowledged, in the far subscriber's buffer.
struct RelayedEvents {
    let hub: BridgeHub
    let near: BridgeSpoke
    let far: EventSubscription<PriceDropped>
    let tasks: [Task<Void, any Error>]

    static func start(bufferSize: Int, events: Int) async throws -> RelayedEvents {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let (hub, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let farBus = makeNodeBus("far")
        let far = farBus.subscribe(PriceDropped.self, bufferSize: bufferSize)
        let (_, farTask) = try await startSpoke(farBus, fastBridge(socket), name: "far")
        let nearBus = makeNodeBus("near")
        let (near, nearTask) = try await startSpoke(nearBus, fastBridge(socket), name: "near")
        try await waitUntil("the publisher knows the far spoke wants the topic") { near.remoteTopicsForTesting.contains(PriceDropped.topic.name) }
        for sequence in 1 ... events { try await nearBus.publish(PriceDropped(route: "OPO-JFK", sequence: sequence)) }
        try await waitUntil("all \(events) wait in the far subscriber's buffer") { far.bufferedCount == events }
        return RelayedEvents(hub: hub, near: near, far: far, tasks: [nearTask, farTask, hubTask])
    }

    func stop() async {
        for task in tasks { task.cancel(); _ = await task.result }
    }
}
