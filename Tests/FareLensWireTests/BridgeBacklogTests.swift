import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Foundation
import InMemoryLogging
import MetricsTestKit
import Testing

/// An away node's durable backlog is capped; past the cap a durable publish
/// fails at once with `overloaded` (docs/bus.md, "A full backlog").
@Suite("A full durable backlog")
struct BridgeBacklogTests {
    /// A node that wanted durable `PriceDropped` events joined and left:
    /// the hub now keeps those events for it.
    func makeAway(_ name: String, socket: String, hub: BridgeHub) async throws {
        let bus = makeNodeBus(name)
        let subscription = bus.subscribe(PriceDropped.self)
        let (_, task) = try await startSpoke(bus, fastBridge(socket), name: name)
        task.cancel()
        _ = await task.result
        withExtendedLifetime(subscription) {}
        try await waitUntil("the hub saw \(name) leave") { hub.meshStatus().nodes.contains { $0.nodeName == name && !$0.connected } }
    }

    func pending(_ hub: BridgeHub, _ name: String) -> UInt64? {
        hub.meshStatus().nodes.first { $0.nodeName == name }?.pendingDurableEvents
    }

    func bridge(_ socket: String, backlog: Int, metrics: TestMetrics = TestMetrics(), journal: OutboxJournal? = nil) -> BridgeConfiguration {
        var configuration = fastBridge(socket)
        configuration.durableBacklog = backlog
        configuration.metricsFactory = metrics
        configuration.outboxJournal = journal
        return configuration
    }

    @Test("an away node's backlog takes durableBacklog events; the next durable publish fails at once with overloaded naming the node and the cap, and is counted")
    func fullBacklogFailsFast() async throws {
        let socket = temporarySocketPath()
        let metrics = TestMetrics()
        let hubBus = makeNodeBus("hub")
        let (hub, hubTask) = try await startHub(hubBus, bridge(socket, backlog: 5, metrics: metrics))
        try await makeAway("alerts-node", socket: socket, hub: hub)
        for sequence in 1 ... 5 { try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: sequence)) }

        let error = await busError { try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: 6)) }
        #expect(error?.kind == .overloaded)
        #expect(error?.message == "durable backlog for node 'alerts-node' is full: 5 events await its acknowledgement (bridge.durableBacklog); the event on 'test.price-dropped' is not kept for it")
        #expect(try metrics.expectCounter("farelens_bridge_durable_rejected_total", [("peer", "alerts-node")]).totalValue == 1)
        #expect(pending(hub, "alerts-node") == 5)
        hubTask.cancel()
        _ = await hubTask.result
    }

    @Test("a hub restarted on its journal still holds a full backlog, refuses more, and redelivers it all when the node returns")
    func restartedHubRedeliversFullBacklog() async throws {
        let socket = temporarySocketPath()
        let journalPath = socket.replacingOccurrences(of: "bus.sock", with: "hub-outbox.sqlite")
        let firstBus = makeNodeBus("hub")
        let first = bridge(socket, backlog: 5, journal: try OutboxJournal(path: journalPath, logger: quietLogger()))
        let (firstHub, firstTask) = try await startHub(firstBus, first)
        try await makeAway("alerts-node", socket: socket, hub: firstHub)
        for sequence in 1 ... 5 { try await firstBus.publish(PriceDropped(route: "OPO-LHR", sequence: sequence)) }
        #expect(await busError { try await firstBus.publish(PriceDropped(route: "OPO-LHR", sequence: 6)) }?.kind == .overloaded)
        firstTask.cancel()
        _ = await firstTask.result

        // The journal is what is under test; a fresh socket path keeps the
        // restart clear of the first hub's socket file.
        let restartedSocket = temporarySocketPath()
        let secondBus = makeNodeBus("hub")
        let second = bridge(restartedSocket, backlog: 5, journal: try OutboxJournal(path: journalPath, logger: quietLogger()))
        let (secondHub, secondTask) = try await startHub(secondBus, second)
        #expect(pending(secondHub, "alerts-node") == 5)
        #expect(await busError { try await secondBus.publish(PriceDropped(route: "OPO-LHR", sequence: 7)) }?.kind == .overloaded)

        let node = makeNodeBus("alerts-node")
        let subscription = node.subscribe(PriceDropped.self)
        let (_, nodeTask) = try await startSpoke(node, fastBridge(restartedSocket), name: "alerts-node")
        #expect(try await firstEvents(5, of: subscription).map(\.sequence) == Array(1 ... 5))
        try await waitUntil("the returned node acknowledged its backlog") { pending(secondHub, "alerts-node") == 0 }
        try await secondBus.publish(PriceDropped(route: "OPO-LHR", sequence: 8))
        for task in [nodeTask, secondTask] { task.cancel(); _ = await task.result }
    }

    @Test("a request on the same bus is answered while an away node's backlog is full, its handler's durable publish failing fast")
    func requestAnsweredWhileBacklogFull() async throws {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let refusals = Locked<[BusError.Kind]>([])
        // Like a search: answer the user, and publish a durable observation.
        try hubBus.serve(EchoRequest.self) { request, _ in
            do throws(BusError) { try await hubBus.publish(PriceDropped(route: request.text, sequence: 0)) } catch { refusals.update { $0.append(error.kind) } }
            return EchoResponse(text: request.text)
        }
        let (hub, hubTask) = try await startHub(hubBus, bridge(socket, backlog: 1))
        try await makeAway("alerts-node", socket: socket, hub: hub)
        try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: 1))
        let callerBus = makeNodeBus("caller")
        let (_, callerTask) = try await startSpoke(callerBus, fastBridge(socket), name: "caller")

        #expect(try await callerBus.request(EchoRequest(text: "LIS-MAD")).text == "LIS-MAD")
        #expect(try await hubBus.request(EchoRequest(text: "LIS-BCN")).text == "LIS-BCN")
        #expect(refusals.get() == [.overloaded, .overloaded])
        for task in [callerTask, hubTask] { task.cancel(); _ = await task.result }
    }

    @Test("a spoke cut off from its hub refuses durable publishes past its own backlog cap, naming the hub")
    func spokeBacklogFailsFast() async throws {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let hubSubscription = hubBus.subscribe(PriceDropped.self)  // the hub wants the topic, so the spoke keeps it
        let (_, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let metrics = TestMetrics()
        let publisherBus = makeNodeBus("watchlist-node")
        let (spoke, spokeTask) = try await startSpoke(publisherBus, bridge(socket, backlog: 3, metrics: metrics), name: "watchlist-node")
        hubTask.cancel()
        _ = await hubTask.result
        withExtendedLifetime(hubSubscription) {}
        try await waitUntil("the spoke noticed the hub is gone") { !spoke.isConnected }

        for sequence in 1 ... 3 { try await publisherBus.publish(PriceDropped(route: "A-B", sequence: sequence)) }
        let error = await busError { try await publisherBus.publish(PriceDropped(route: "A-B", sequence: 4)) }
        #expect(error?.kind == .overloaded)
        #expect(error?.message.hasPrefix("durable backlog for node 'hub' is full: 3 events") == true)
        #expect(try metrics.expectCounter("farelens_bridge_durable_rejected_total", [("peer", "hub")]).totalValue == 1)
        #expect(spoke.pendingDurableEvents == 3)
        spokeTask.cancel()
        _ = await spokeTask.result
    }

    @Test("an event relayed to a node whose backlog is full is counted and logged, and its sender still gets its acknowledgement")
    func relayedCopyIsSettled() async throws {
        let socket = temporarySocketPath()
        let metrics = TestMetrics()
        let logs = InMemoryLogHandler()
        let hubBus = makeNodeBus("hub")
        let (hub, hubTask) = try await startHub(hubBus, bridge(socket, backlog: 1, metrics: metrics), logger: recordingLogger(logs))
        try await makeAway("alerts-node", socket: socket, hub: hub)
        try await hubBus.publish(PriceDropped(route: "A-B", sequence: 1))  // fills alerts-node's backlog
        let publisherBus = makeNodeBus("watchlist-node")
        let (publisher, publisherTask) = try await startSpoke(publisherBus, fastBridge(socket), name: "watchlist-node")

        try await publisherBus.publish(PriceDropped(route: "C-D", sequence: 1))
        try await waitUntil("the hub acknowledged the publisher's event") { publisher.pendingDurableEvents == 0 }
        #expect(try metrics.expectCounter("farelens_bridge_durable_rejected_total", [("peer", "alerts-node")]).totalValue == 1)
        let warning = logs.entries.first { $0.message.description == "durable event not kept for a node whose backlog is full" }
        #expect(warning?.level == .warning)
        #expect(warning?.metadata["from"]?.description == "watchlist-node")
        #expect(pending(hub, "alerts-node") == 1)
        for task in [publisherTask, hubTask] { task.cancel(); _ = await task.result }
    }
}
