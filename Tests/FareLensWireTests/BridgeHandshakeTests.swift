import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Foundation
import InMemoryLogging
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The socket file and the handshake, as docs/wire-protocol.md sections 2
/// and 5.1 state them.
@Suite("Bridge socket and handshake")
struct BridgeHandshakeTests {
    @Test("an admin hello from a uid not in adminUIDs is refused with a goodbye naming the uid and bridge.adminUids; the same uid may join as a node")
    func adminHelloFromNonAdminUID() async throws {
        let path = temporarySocketPath()
        var configuration = fastBridge(path)
        configuration.adminUIDs = [UInt32(getuid()) &+ 4242]
        let (_, task) = try await startHub(makeNodeBus("hub"), configuration)
        let admin = try RawSocketClient(path: path)
        try admin.send(rawHello(name: "ctl", role: .admin))
        let (bytes, closed) = await admin.readUntilClosed()
        admin.close()
        #expect(closed)
        let goodbye = try RawSocketClient.envelopes(in: bytes).last
        #expect(goodbye?.kind == .goodbye)
        #expect(goodbye?.error.message == "peer-not-allowed: peer uid \(getuid()) may not join as an admin client: it is not in bridge.adminUids")

        let node = try RawSocketClient(path: path)
        try node.send(rawHello(name: "node"))
        #expect(await node.readUntil(kind: .welcome).first?.kind == .welcome)
        node.close()
        task.cancel()
    }

    @Test("a peer that never sends a hello is closed after helloTimeout with a goodbye, and the reason is logged")
    func helloTimeout() async throws {
        let path = temporarySocketPath()
        let logs = InMemoryLogHandler()
        var configuration = fastBridge(path)
        configuration.helloTimeout = .milliseconds(200)
        let (_, task) = try await startHub(makeNodeBus("hub"), configuration, logger: recordingLogger(logs))
        let silent = try RawSocketClient(path: path)
        let (bytes, closed) = await silent.readUntilClosed()
        silent.close()
        let reason = "no hello within \(Duration.milliseconds(200))"
        #expect(closed)
        #expect(try RawSocketClient.envelopes(in: bytes).map(\.error.message) == [reason])
        try await waitUntil("the refusal is logged") { logs.entries.contains { $0.message.description == "refusing bridge connection" } }
        let record = logs.entries.first { $0.message.description == "refusing bridge connection" }
        #expect(record?.level == .warning)
        #expect(record?.metadata["reason"]?.description == reason)
        task.cancel()
    }

    @Test("a hub that accepts and never answers: the spoke gives up after helloTimeout and says so, not that the hub refused it")
    func welcomeTimeout() async throws {
        let path = temporarySocketPath()
        let listener = try listenerThatNeverAccepts(path)
        defer { close(listener); unlink(path) }
        var configuration = fastBridge(path)
        configuration.helloTimeout = .milliseconds(200)
        let spoke = BridgeSpoke(bus: makeNodeBus("spoke"), configuration: configuration, identity: testIdentity("spoke"), logger: quietLogger())
        let error = await #expect(throws: WireProtocolError.self) { try await spoke.session() }
        #expect(error?.codeName == "socket-unavailable")
        #expect(error?.message == "socket \(path): the hub sent no welcome within \(Duration.milliseconds(200))", "\(error?.message ?? "")")
    }

    @Test("with socketGroup set the socket file is mode 0660 and owned by that group")
    func socketGroupMode() async throws {
        let path = temporarySocketPath()
        let group = try #require(getgrgid(getgid()), "the current user's primary group")
        var configuration = fastBridge(path)
        configuration.socketGroup = String(cString: group.pointee.gr_name)
        let (_, task) = try await startHub(makeNodeBus("hub"), configuration)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(info.st_gid == getgid())
        task.cancel()
        _ = await task.result
    }

    /// A path of `bytes` bytes in a fresh directory.
    func socketPath(bytes: Int) -> String {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        return directory + "/" + String(repeating: "s", count: bytes - directory.utf8.count - 1)
    }

    @Test("a socket path over 103 bytes is refused with socket-unavailable naming the limit, by a hub and by a spoke", arguments: [104, 108])
    func socketPathTooLong(bytes: Int) async throws {
        let path = socketPath(bytes: bytes)
        #expect(path.utf8.count == bytes)
        let hub = BridgeHub(bus: makeNodeBus("hub"), configuration: fastBridge(path), identity: testIdentity("hub"), logger: quietLogger())
        let error = await #expect(throws: WireProtocolError.self) { try await hub.run() }
        #expect(error?.codeName == "socket-unavailable")
        #expect(error?.message == "socket \(path): path is \(bytes) bytes; Unix sockets allow at most 103")
        #expect(!FileManager.default.fileExists(atPath: path))
        let spoke = BridgeSpoke(bus: makeNodeBus("node"), configuration: fastBridge(path), identity: testIdentity("node"), logger: quietLogger())
        let spokeError = await #expect(throws: WireProtocolError.self) { try await spoke.session() }
        #expect(spokeError?.message == "socket \(path): path is \(bytes) bytes; Unix sockets allow at most 103")
    }

    @Test("a socket path of exactly 103 bytes is accepted")
    func socketPathAtLimit() async throws {
        let path = socketPath(bytes: 103)
        #expect(path.utf8.count == 103)
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        #expect(FileManager.default.fileExists(atPath: path))
        task.cancel()
        _ = await task.result
    }
}
