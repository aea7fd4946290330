import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Testing

/// Peers that vanish, come back, or never were: split shape only.
@Suite("Bridge faults")
struct BridgeFaultTests {
    @Test("a spoke that goes away fails its in-flight requests at once with service unavailable; other services keep working")
    func lostSpokeFailsInFlight() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub", deadline: .seconds(60))
        try serveEcho(hubBus)
        let (_, hubTask) = try await startHub(hubBus, fastBridge(path))
        let slowBus = makeNodeBus("slow-node")
        let never = Gate()
        try slowBus.serve(SlowRequest.self, execution: .isolated) { _, _ in
            await never.wait()
            return EchoResponse(text: "never")
        }
        let (_, slowTask) = try await startSpoke(slowBus, fastBridge(path), name: "slow-node")
        let callerBus = makeNodeBus("caller", deadline: .seconds(60))
        let (caller, callerTask) = try await startSpoke(callerBus, fastBridge(path), name: "caller")
        try await waitUntil("the caller sees the slow service") { caller.hosts(SlowRequest.address) }

        async let pending = busError { try await callerBus.request(SlowRequest(label: "stuck")) }
        try await waitUntil("the request is in flight on the slow node") { slowBus.inFlight(at: SlowRequest.address) == 1 }
        slowTask.cancel()
        let error = await pending
        #expect(error?.kind == .serviceUnavailable)
        #expect(error?.message.contains("service 'slow' unavailable") == true)
        #expect(try await callerBus.request(EchoRequest(text: "still here")).text == "still here")
        never.open()
        for task in [callerTask, hubTask] { task.cancel() }
    }

    @Test("a spoke that comes back under its name gets its routes back with no operator action")
    func returningSpokeRejoins() async throws {
        let path = temporarySocketPath()
        let (_, hubTask) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let callerBus = makeNodeBus("caller")
        let (caller, callerTask) = try await startSpoke(callerBus, fastBridge(path), name: "caller")
        let first = makeNodeBus("echo-node")
        try serveEcho(first)
        let (_, firstTask) = try await startSpoke(first, fastBridge(path), name: "echo-node")
        try await waitUntil("the caller sees echo") { caller.hosts(EchoRequest.address) }
        firstTask.cancel()
        try await waitUntil("echo is gone") { !caller.hosts(EchoRequest.address) }
        #expect(await busError { try await callerBus.request(EchoRequest(text: "x")) }?.kind == .serviceUnavailable)

        let second = makeNodeBus("echo-node")
        try serveEcho(second)
        let (_, secondTask) = try await startSpoke(second, fastBridge(path), name: "echo-node")
        try await waitUntil("echo is back") { caller.hosts(EchoRequest.address) }
        #expect(try await callerBus.request(EchoRequest(text: "back")).text == "back")
        for task in [secondTask, callerTask, hubTask] { task.cancel() }
    }

    @Test("durable events published while a subscriber node is away reach it when it returns")
    func durableEventsWaitForReturningNode() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let (hub, hubTask) = try await startHub(hubBus, fastBridge(path))
        let before = makeNodeBus("alerts-node")
        let oldSubscription = before.subscribe(PriceDropped.self)
        let (_, beforeTask) = try await startSpoke(before, fastBridge(path), name: "alerts-node")
        beforeTask.cancel()
        _ = oldSubscription
        try await waitUntil("the hub saw the node leave") { hub.meshStatus().nodes.contains { $0.nodeName == "alerts-node" && !$0.connected } }
        for sequence in 1 ... 50 { try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: sequence)) }
        #expect(hub.meshStatus().nodes.first { $0.nodeName == "alerts-node" }?.pendingDurableEvents == 50)

        let after = makeNodeBus("alerts-node")
        let subscription = after.subscribe(PriceDropped.self)
        let (_, afterTask) = try await startSpoke(after, fastBridge(path), name: "alerts-node")
        let received = try await firstEvents(50, of: subscription).map(\.sequence)
        #expect(received == Array(1 ... 50))
        try await waitUntil("every event is acknowledged") { hub.meshStatus().nodes.first { $0.nodeName == "alerts-node" }?.pendingDurableEvents == 0 }
        for task in [afterTask, hubTask] { task.cancel() }
    }

    @Test("after a hub restart the spoke reconnects and redelivers the durable events the hub had not acknowledged")
    func hubRestartRedelivers() async throws {
        let path = temporarySocketPath()
        let firstHub = makeNodeBus("hub")
        let firstSubscription = firstHub.subscribe(PriceDropped.self)
        let (_, firstHubTask) = try await startHub(firstHub, fastBridge(path))
        let publisher = makeNodeBus("watchlist-node")
        let (spoke, spokeTask) = try await startSpoke(publisher, fastBridge(path), name: "watchlist-node")
        firstHubTask.cancel()
        _ = firstSubscription
        _ = await firstHubTask.result  // a restarted hub binds the same path: let this one finish closing
        try await waitUntil("the spoke noticed the hub is gone") { !spoke.isConnected }
        for sequence in 1 ... 20 { try await publisher.publish(PriceDropped(route: "OPO-LHR", sequence: sequence)) }

        let secondHub = makeNodeBus("hub")
        let subscription = secondHub.subscribe(PriceDropped.self)
        let (_, secondHubTask) = try await startHub(secondHub, fastBridge(path))
        let received = try await firstEvents(20, of: subscription).map(\.sequence)
        #expect(received == Array(1 ... 20))
        for task in [spokeTask, secondHubTask] { task.cancel() }
    }
}

func serveEcho(_ bus: MessageBus) throws {
    try bus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
}
