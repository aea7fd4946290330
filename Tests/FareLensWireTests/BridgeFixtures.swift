import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Foundation
import InMemoryLogging
import Logging
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// A bus for one test node.
func makeNodeBus(_ name: String, deadline: Duration = .seconds(10), clock: BusClock = .continuous) -> MessageBus {
    var configuration = BusConfiguration()
    configuration.nodeName = name
    configuration.defaultDeadline = deadline
    configuration.clock = clock
    return MessageBus(configuration: configuration)
}

/// Bridge settings with fast reconnects.
func fastBridge(_ path: String) -> BridgeConfiguration {
    var configuration = BridgeConfiguration(socketPath: path)
    configuration.reconnectBackoff = (.milliseconds(10), .milliseconds(100))
    return configuration
}

/// ``fastBridge(_:)`` for a test that expects a refusal's reason: the hello,
/// the welcome and the refusal's grace wait a minute, longer than any stall
/// of the machine (CI once stalled every test for about 9 s; past the 2 s
/// defaults, a timeout's reason came instead of the refusal's).
func patientBridge(_ path: String) -> BridgeConfiguration {
    var configuration = fastBridge(path)
    configuration.helloTimeout = .seconds(60)
    configuration.refusalGrace = .seconds(60)
    return configuration
}

/// Starts a hub for `bus` and waits until it listens.
func startHub(
    _ bus: MessageBus, _ configuration: BridgeConfiguration, name: String = "hub", logger: Logger = quietLogger()
) async throws -> (BridgeHub, Task<Void, any Error>) {
    let listening = Gate()
    let failure = Locked<(any Error)?>(nil)
    let hub = BridgeHub(bus: bus, configuration: configuration, identity: testIdentity(name), logger: logger) { listening.open() }
    bus.attach(hub)
    let task = Task {
        do { try await hub.run() } catch {
            // A hub that cannot listen must not leave its starter waiting forever.
            failure.set(error)
            listening.open()
            throw error
        }
    }
    await listening.wait()
    if let error = failure.get() { throw error }
    return (hub, task)
}

/// Starts a reconnecting spoke for `bus` and waits until it joined.
func startSpoke(_ bus: MessageBus, _ configuration: BridgeConfiguration, name: String, role: NodeIdentity.Role = .node) async throws -> (BridgeSpoke, Task<Void, any Error>) {
    let spoke = BridgeSpoke(bus: bus, configuration: configuration, identity: testIdentity(name, role: role), logger: quietLogger())
    bus.attach(spoke)
    let task = Task { try await spoke.run() }
    try await waitUntil("spoke \(name) joined") { spoke.isConnected }
    return (spoke, task)
}

/// The Unix socket address of `path` (shorter than `sun_path`: test paths are).
func unixSocketAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    precondition(path.utf8.count < MemoryLayout.size(ofValue: address.sun_path), "socket path too long: \(path)")
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    return address
}

/// A Unix socket at `path` that listens and never accepts: a connection
/// succeeds (the kernel's backlog) and nothing ever answers it.
func listenerThatNeverAccepts(_ path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = unixSocketAddress(path)
    let bound = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard descriptor >= 0, bound == 0, listen(descriptor, 8) == 0 else { throw WaitTimedOut(what: "a listener at \(path) (errno \(errno))") }
    return descriptor
}

/// A blocking Unix-socket client that writes raw bytes, for feeding a hub
/// what no well-behaved peer would send.
struct RawSocketClient {
    let fd: Int32

    /// Connects to `path`; a read waits at most `readLimit` seconds.
    init(path: String, readLimit: Int = 10) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = unixSocketAddress(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw WaitTimedOut(what: "raw connect to \(path) (errno \(errno))") }
        Self.limitReads(fd, seconds: readLimit)
    }

    /// Wraps one end of a connected socket pair.
    init(connectedDescriptor: Int32) {
        fd = connectedDescriptor
        Self.limitReads(fd)
    }

    /// A read waits at most `seconds` (10 by default).
    private static func limitReads(_ fd: Int32, seconds: Int = 10) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    /// Sends one envelope as a frame.
    func send(_ envelope: WireEnvelope) throws {
        var frame = ByteBuffer()
        FrameCodec.encode(payload: try EnvelopeCoding.encode(envelope), limits: WireLimits(), into: &frame)
        write(Array(frame.readableBytesView))
    }

    /// Sends one envelope as a frame in one `send` (no SIGPIPE), and says
    /// how many bytes went and how many the frame has: -1 and `errno` when
    /// the socket refused it (a peer gone: EPIPE).
    func sendChecked(_ envelope: WireEnvelope) throws -> (sent: Int, frame: Int, errno: Int32) {
        var frame = ByteBuffer()
        FrameCodec.encode(payload: try EnvelopeCoding.encode(envelope), limits: WireLimits(), into: &frame)
        let bytes = Array(frame.readableBytesView)
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return (sent, bytes.count, sent < 0 ? errno : 0)
    }

    /// Reads until the peer closes (or 10 s pass); returns everything read.
    /// The blocking reads run on their own thread, never on the
    /// concurrency pool (two cores here: two blocked reads would stall it).
    func readUntilClosed() async -> (bytes: [UInt8], closed: Bool) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: blockingReadUntilClosed()) }
        }
    }

    /// Reads (off the pool) until the envelopes read so far contain one of
    /// `kind`, the peer closes, or 10 s pass.
    func readUntil(kind: WireEnvelope.Kind) async -> [WireEnvelope] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var all: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let envelopes = (try? Self.envelopes(in: all)) ?? []
                    if envelopes.contains(where: { $0.kind == kind }) { return continuation.resume(returning: envelopes) }
                    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count <= 0 { return continuation.resume(returning: envelopes) }
                    all.append(contentsOf: chunk[0 ..< count])
                }
            }
        }
    }

    private func blockingReadUntilClosed() -> (bytes: [UInt8], closed: Bool) {
        var all: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return (all, true) }
            if count < 0 { return (all, false) }
            all.append(contentsOf: chunk[0 ..< count])
        }
    }

    /// The envelopes in `bytes`, decoded frame by frame.
    static func envelopes(in bytes: [UInt8]) throws -> [WireEnvelope] {
        var buffer = ByteBuffer(bytes: bytes)
        var result: [WireEnvelope] = []
        while let payload = try FrameCodec.decode(from: &buffer, limits: WireLimits()) {
            result.append(try EnvelopeCoding.decode(payload))
        }
        return result
    }

    func close() { _ = Glibc.close(fd) }
}

/// A hello as a node (or admin client) of protocol `version` would send it.
func rawHello(name: String, version: UInt32 = 1, role: WireHello.Role = .node, topics: [String] = []) -> WireEnvelope {
    var envelope = WireEnvelope()
    envelope.kind = .hello
    envelope.hello.protocolVersion = version
    envelope.hello.role = role
    envelope.hello.nodeName = name
    envelope.hello.topicsWanted = topics
    return envelope
}

/// A logger that keeps every record at `level` or above in `handler`.
func recordingLogger(_ handler: InMemoryLogHandler, level: Logger.Level = .trace) -> Logger {
    var logger = Logger(label: "test") { _ in handler }
    logger.logLevel = level
    return logger
}

extension RawSocketClient {
    /// Reads (off the pool) until the envelopes read so far satisfy `done`,
    /// the peer closes, or 10 s pass; returns what was read.
    func readUntil(_ done: @escaping @Sendable ([WireEnvelope]) -> Bool) async -> [WireEnvelope] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var all: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let envelopes = (try? Self.envelopes(in: all)) ?? []
                    if done(envelopes) { return continuation.resume(returning: envelopes) }
                    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count <= 0 { return continuation.resume(returning: envelopes) }
                    all.append(contentsOf: chunk[0 ..< count])
                }
            }
        }
    }
}

/// A REQUEST as a hand-written client would send it; `deadlineMicros` 0
/// leaves the field out, as proto3 does.
func rawEchoRequest(id: UInt64, text: String, deadlineMicros: UInt64 = 5_000_000) throws -> WireEnvelope {
    var request = WireEnvelope()
    request.kind = .request
    request.correlationID = id
    request.address = EchoRequest.address.name
    request.typeName = EchoRequest.wireTypeName
    request.deadlineMicros = deadlineMicros
    request.payload = Data(try EchoRequest(text: text).wireEncoded())
    return request
}
