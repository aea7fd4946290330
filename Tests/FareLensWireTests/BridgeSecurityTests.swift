import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Who may connect, what they may call, and what a bad peer can break.
@Suite("Bridge security and bad input")
struct BridgeSecurityTests {
    @Test("the socket file is readable and writable by its owner only")
    func socketIsOwnerOnly() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        task.cancel()
    }

    /// A hub whose allow-list holds another uid than this process's.
    private static func hubRefusingThisUID() async throws -> (path: String, task: Task<Void, any Error>) {
        let path = temporarySocketPath()
        var configuration = patientBridge(path)
        configuration.allowedUIDs = [UInt32(getuid()) &+ 4242]
        let (_, task) = try await startHub(makeNodeBus("hub"), configuration)
        return (path, task)
    }

    @Test("a peer whose uid is not on the allow-list is refused with peer-not-allowed")
    func uidAllowList() async throws {
        let (path, task) = try await Self.hubRefusingThisUID()
        let spoke = BridgeSpoke(bus: makeNodeBus("intruder"), configuration: patientBridge(path), identity: testIdentity("intruder"), logger: quietLogger())
        let error = await #expect(throws: WireProtocolError.self) { try await spoke.session() }
        #expect(error?.codeName == "socket-unavailable")
        #expect(error?.message.contains("hub refused this node: peer-not-allowed: peer uid \(getuid()) is not in the allow-list") == true)
        task.cancel()
    }

    @Test("a refused peer may still write its hello after the GOODBYE: the hub stops writing but reads on, so the peer is not reset before it reads why")
    func refusalHalfCloses() async throws {
        let (path, task) = try await Self.hubRefusingThisUID()
        defer { task.cancel() }
        let peer = try RawSocketClient(path: path)
        defer { peer.close() }
        // Refused on its uid before it says anything: the GOODBYE comes first.
        let goodbye = await peer.readUntil(kind: .goodbye).last
        #expect(goodbye?.error.message == "peer-not-allowed: peer uid \(getuid()) is not in the allow-list")
        try await Task.sleep(for: .milliseconds(100))  // safe: a hub that closed at once has closed by now
        let hello = try peer.sendChecked(rawHello(name: "late"))
        #expect(hello.sent == hello.frame, "the hello could not be written: errno \(hello.errno)")
        #expect(await peer.readUntilClosed().closed, "the hub writes nothing more")
    }

    @Test("admin-only addresses are refused to node peers and answered for admin clients")
    func adminOnlyAddresses() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let (hub, task) = try await startHub(hubBus, fastBridge(path))
        try hubBus.serve(MeshStatusRequest.self) { _, _ in hub.meshStatus() }
        let nodeBus = makeNodeBus("node")
        let (node, nodeTask) = try await startSpoke(nodeBus, fastBridge(path), name: "node")
        try await waitUntil("the node sees the admin address") { node.hosts(.admin) }
        #expect(await busError { try await nodeBus.request(MeshStatusRequest()) }?.kind == .forbidden)

        let adminBus = makeNodeBus("ctl")
        let (_, adminTask) = try await startSpoke(adminBus, fastBridge(path), name: "ctl", role: .admin)
        let status = try await adminBus.request(MeshStatusRequest())
        #expect(status.nodes.map(\.nodeName) == ["hub", "node"])
        for t in [adminTask, nodeTask, task] { t.cancel() }
    }

    @Test("garbage bytes close only the connection that sent them")
    func malformedFrameClosesOnlyItsConnection() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        try serveEcho(hubBus)
        let (_, task) = try await startHub(hubBus, fastBridge(path))
        let goodBus = makeNodeBus("good")
        let (_, goodTask) = try await startSpoke(goodBus, fastBridge(path), name: "good")

        for garbage: [UInt8] in [[0, 0, 0, 2, 0x80, 0], [0x7F, 0xFF, 0xFF, 0xFF], [0, 0, 0, 3, 0, 0xFF, 0xFF], [0, 0, 0, 0]] {
            let raw = try RawSocketClient(path: path)
            raw.write(garbage)
            #expect(await raw.readUntilClosed().closed, "hub should close a connection that sent \(garbage)")
            raw.close()
        }
        #expect(try await goodBus.request(EchoRequest(text: "unaffected")).text == "unaffected")
        for t in [goodTask, task] { t.cancel() }
    }

    @Test("a request before the hello is refused with a goodbye naming the fault")
    func requestBeforeHello() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let raw = try RawSocketClient(path: path)
        var request = WireEnvelope()
        request.kind = .request
        request.address = "echo"
        try raw.send(request)
        let (bytes, closed) = await raw.readUntilClosed()
        #expect(closed)
        let goodbye = try RawSocketClient.envelopes(in: bytes).last
        #expect(goodbye?.kind == .goodbye)
        #expect(goodbye?.error.message.contains("unexpected-message") == true)
        raw.close()
        task.cancel()
    }

    @Test("a hello in another protocol version is refused with unsupported-version")
    func versionMismatch() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let raw = try RawSocketClient(path: path)
        try raw.send(rawHello(name: "future", version: 2))
        let goodbye = try RawSocketClient.envelopes(in: await raw.readUntilClosed().bytes).last
        #expect(goodbye?.error.message.contains("unsupported-version") == true)
        raw.close()
        task.cancel()
    }

    @Test("a second live node with a taken name is refused with duplicate-node")
    func duplicateNames() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), patientBridge(path))
        let (_, firstTask) = try await startSpoke(makeNodeBus("twin"), fastBridge(path), name: "twin")
        let second = BridgeSpoke(bus: makeNodeBus("twin"), configuration: patientBridge(path), identity: testIdentity("twin"), logger: quietLogger())
        let error = await #expect(throws: WireProtocolError.self) { try await second.session() }
        #expect(error?.codeName == "socket-unavailable")
        #expect(error?.message.contains("hub refused this node: duplicate-node: a node named 'twin' is already connected") == true)
        for t in [firstTask, task] { t.cancel() }
    }

    @Test("a second hub on a socket where a node listens is refused; a stale socket file is replaced")
    func socketOwnership() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let second = BridgeHub(bus: makeNodeBus("hub2"), configuration: fastBridge(path), identity: testIdentity("hub2"), logger: quietLogger())
        let error = await #expect(throws: WireProtocolError.self) { try await second.run() }
        #expect(error?.codeName == "socket-unavailable")
        task.cancel()
        _ = await task.result
        // Leave a stale file behind, as a crashed node would.
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let (_, third) = try await startHub(makeNodeBus("hub3"), fastBridge(path))
        third.cancel()
    }

    @Test("a hub restarted on its path while the old one is still closing keeps its socket file, 30 times in a row")
    func restartWhileClosing() async throws {
        let path = temporarySocketPath()
        var (_, running) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        for round in 1 ... 30 {
            running.cancel()  // not awaited: the next hub binds while this one closes
            let (_, next) = try await startHub(makeNodeBus("hub"), fastBridge(path))
            _ = await running.result
            // The old hub is gone; the file it leaves behind must be the new hub's.
            #expect(FileManager.default.fileExists(atPath: path), "round \(round): the socket file is gone")
            let (_, spoke) = try await startSpoke(makeNodeBus("probe"), fastBridge(path), name: "probe")
            spoke.cancel()
            _ = await spoke.result
            running = next
        }
        running.cancel()
        _ = await running.result
        #expect(!FileManager.default.fileExists(atPath: path), "the last hub removes its socket file")
    }
}

@Suite("Bridge admin boundary")
struct BridgeAdminBoundaryTests {
    @Test("an admin client whose hello lists a service is never sent requests for it")
    func adminHostsNothing() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub", deadline: .seconds(2))
        let (_, task) = try await startHub(hubBus, fastBridge(path))
        let adminBus = makeNodeBus("ctl")
        try serveEcho(adminBus)  // so its hello lists the echo service
        let (_, adminTask) = try await startSpoke(adminBus, fastBridge(path), name: "ctl", role: .admin)
        let error = await busError { try await hubBus.request(EchoRequest(text: "to an admin?")) }
        #expect(error?.kind == .serviceUnavailable)
        #expect(adminBus.inFlight(at: EchoRequest.address) == 0)
        for t in [adminTask, task] { t.cancel(); _ = await t.result }
    }

    @Test("an admin message type sent to an ordinary address is refused, not answered")
    func adminTypeThroughOrdinaryAddress() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        try serveEcho(hubBus)
        let (hub, task) = try await startHub(hubBus, fastBridge(path))
        try hubBus.serve(MeshStatusRequest.self) { _, _ in hub.meshStatus() }
        let raw = try RawSocketClient(path: path)
        try raw.send(rawHello(name: "sneaky"))
        var request = WireEnvelope()
        request.kind = .request
        request.correlationID = 1
        request.address = "echo"
        request.typeName = MeshStatusRequest.wireTypeName
        request.deadlineMicros = 5_000_000
        try raw.send(request)
        let envelopes = await raw.readUntil(kind: .response)
        let response = try #require(envelopes.first { $0.kind == .response })
        #expect(response.error.kind == "bad-message")
        #expect(response.payload.isEmpty)
        raw.close()
        task.cancel()
    }
}
