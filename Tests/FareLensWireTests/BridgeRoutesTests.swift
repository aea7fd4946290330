import FareLensBus
import FareLensMessages
import FareLensTesting
@testable import FareLensWire
import InMemoryLogging
import Testing

/// ROUTES tell nodes where services and subscribers are; admin clients are
/// neither, so they neither get ROUTES nor cause them.
@Suite("ROUTES go to nodes, about nodes")
struct BridgeRoutesTests {
    @Test("a connected peer receives no ROUTES while 50 admin clients come and go", arguments: [WireHello.Role.admin, .node])
    func adminChurnSendsNoRoutes(observerRole: WireHello.Role) async throws {
        let path = temporarySocketPath()
        let logs = InMemoryLogHandler()
        let hubBus = makeNodeBus("hub")
        try serveEcho(hubBus)
        let (_, task) = try await startHub(hubBus, fastBridge(path), logger: recordingLogger(logs, level: .info))
        // It hears nothing while the 50 come and go (that is the point): its
        // read may wait that long. Under ops/test.sh's main phase the churn
        // once took over 10 s, the default read limit, and the marker's answer was missed.
        let observer = try RawSocketClient(path: path, readLimit: 60)
        try observer.send(rawHello(name: "observer", role: observerRole))
        // One reader for the whole session, so no frame goes uncounted.
        async let everything = observer.readUntil { envelopes in envelopes.contains { $0.kind == .response } }
        for index in 1 ... 50 {
            let client = try RawSocketClient(path: path)
            try client.send(rawHello(name: "ctl-\(index)", role: .admin))
            _ = await client.readUntil { envelopes in envelopes.contains { $0.kind == .welcome } }
            client.close()
        }
        // The hub logs "peer left" after any ROUTES it sends for that departure.
        try await waitUntil("the hub saw the 50 admin clients leave") {
            logs.entries.filter { $0.message.description == "peer left" && $0.metadata["peer"]?.description.hasPrefix("ctl-") == true }.count == 50
        }
        try observer.send(try rawEchoRequest(id: 1, text: "marker"))
        let envelopes = await everything
        observer.close()
        #expect(envelopes.first?.kind == .welcome)
        #expect(envelopes.contains { $0.kind == .response && $0.correlationID == 1 })
        #expect(envelopes.filter { $0.kind == .routes }.count == 0)
        task.cancel()
    }

    @Test("a node gets ROUTES when another node joins and when it leaves")
    func nodeChurnSendsRoutes() async throws {
        let path = temporarySocketPath()
        let (hub, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let observer = try RawSocketClient(path: path)
        try observer.send(rawHello(name: "observer"))
        async let everything = observer.readUntil { envelopes in envelopes.filter { $0.kind == .routes }.count == 2 }
        // The observer joined before echo-node: else echo-node is in its welcome, not in a ROUTES.
        try await waitUntil("the observer joined") { hub.connection(named: "observer") != nil }
        let echoBus = makeNodeBus("echo-node")
        try serveEcho(echoBus)
        let (_, echoTask) = try await startSpoke(echoBus, fastBridge(path), name: "echo-node")
        echoTask.cancel()
        let routes = await everything.filter { $0.kind == .routes }.map { $0.routes.nodes.map(\.nodeName) }
        observer.close()
        #expect(routes == [["hub", "echo-node", "observer"], ["hub", "observer"]])
        task.cancel()
    }

    @Test("a node is not told to send the hub the events only it wants; it is once another node wants them")
    func ownTopicsStayHome() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let nearBus = makeNodeBus("near")
        let own = nearBus.subscribe(PriceDropped.self)
        let (near, nearTask) = try await startSpoke(nearBus, fastBridge(path), name: "near")
        // Another node's arrival sends near a ROUTES (the hub's hello is rebuilt for it).
        let echoBus = makeNodeBus("echo-node")
        try serveEcho(echoBus)
        let (_, echoTask) = try await startSpoke(echoBus, fastBridge(path), name: "echo-node")
        try await waitUntil("near got the ROUTES naming echo-node") { near.hosts(EchoRequest.address) }
        #expect(!near.remoteTopicsForTesting.contains(PriceDropped.topic.name))
        try await nearBus.publish(PriceDropped(route: "LIS-OPO", sequence: 1))
        #expect(near.pendingDurableEvents == 0, "nothing was sent (or journaled) for the hub")
        #expect(try await firstEvents(1, of: own).map(\.sequence) == [1])

        let farBus = makeNodeBus("far")
        let far = farBus.subscribe(PriceDropped.self)
        let (_, farTask) = try await startSpoke(farBus, fastBridge(path), name: "far")
        try await waitUntil("near learnt that far wants the topic") { near.remoteTopicsForTesting.contains(PriceDropped.topic.name) }
        try await nearBus.publish(PriceDropped(route: "LIS-OPO", sequence: 2))
        #expect(try await firstEvents(1, of: far).map(\.sequence) == [2])
        for t in [farTask, echoTask, nearTask, task] { t.cancel(); _ = await t.result }
    }
}
