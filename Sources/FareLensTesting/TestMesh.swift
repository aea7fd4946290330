public import FareLensBus
public import FareLensWire
import Foundation
public import Logging

/// The two shapes every cross-service behaviour is tested in.
public enum MeshShape: String, CaseIterable, Sendable, CustomStringConvertible {
    /// Caller and handler share one bus: no serialization, no socket.
    case oneProcess
    /// Caller and handler have their own buses joined over a real Unix
    /// socket: the handler's bus is the hub, the caller's a spoke.
    case split
    #if NATS
    /// Caller and handler have their own buses joined through a real
    /// `nats-server` (``TestNATSServer``), each in the test's own namespace.
    case nats
    #endif
    public var description: String { rawValue }
}

/// A hub and a spoke, or one bus playing both, for shape-parameterized tests.
public struct TestMesh: Sendable {
    /// The bus where the service under test runs (the hub when split).
    public let serverBus: MessageBus
    /// The bus the caller uses (the spoke when split).
    public let clientBus: MessageBus
    /// The socket path when split.
    public let socketPath: String
    /// The hub, when split.
    public let hub: BridgeHub?
    /// The spoke, when split.
    public let spoke: BridgeSpoke?
}

/// Builds buses for `shape`, lets `configure` register handlers and
/// subscriptions (before the hello is sent), starts the bridge, waits until
/// the spoke has joined, runs `body`, then stops everything. Both buses
/// read `clock` (``BusClock``): a test's own moves their deadlines.
public func withTestMesh(
    _ shape: MeshShape,
    deadline: Duration = .seconds(5),
    clock: BusClock = .continuous,
    bridge adjust: @Sendable (inout BridgeConfiguration) -> Void = { _ in },
    configure: (_ server: MessageBus, _ client: MessageBus) throws -> Void,
    body: @escaping @Sendable (TestMesh) async throws -> Void
) async throws {
    var busConfiguration = BusConfiguration()
    busConfiguration.defaultDeadline = deadline
    busConfiguration.clock = clock
    busConfiguration.nodeName = "hub"
    let serverBus = MessageBus(configuration: busConfiguration)
    guard shape != .oneProcess else {
        try configure(serverBus, serverBus)
        return try await withJoinedBuses(shape, server: serverBus, client: serverBus, body: body)
    }
    busConfiguration.nodeName = "spoke"
    let clientBus = MessageBus(configuration: busConfiguration)
    try configure(serverBus, clientBus)
    try await withJoinedBuses(shape, server: serverBus, client: clientBus, bridge: adjust, body: body)
}

/// Joins two buses that exist already in `shape` (`server` the hub, `client`
/// a spoke or a second NATS node), waits until they have joined, runs
/// `body`, then stops them: for a test whose client node joins after the
/// server's services have made their state. In `.oneProcess`, `server` and
/// `client` are one bus and `body` runs at once.
public func withJoinedBuses(
    _ shape: MeshShape, server serverBus: MessageBus, client clientBus: MessageBus,
    bridge adjust: @Sendable (inout BridgeConfiguration) -> Void = { _ in },
    body: @escaping @Sendable (TestMesh) async throws -> Void
) async throws {
    guard shape != .oneProcess else {
        precondition(serverBus === clientBus, "one process is one bus")
        let mesh = TestMesh(serverBus: serverBus, clientBus: clientBus, socketPath: "", hub: nil, spoke: nil)
        try await withTimeLimit("the test body finished") { try await body(mesh) }
        return
    }
    #if NATS
    if shape == .nats { return try await withNATSMesh(serverBus: serverBus, clientBus: clientBus, body: body) }
    #endif
    let socketPath = temporarySocketPath()
    var configuration = BridgeConfiguration(socketPath: socketPath)
    configuration.reconnectBackoff = (.milliseconds(10), .milliseconds(100))
    adjust(&configuration)
    let hub = BridgeHub(bus: serverBus, configuration: configuration, identity: testIdentity("hub"), logger: quietLogger())
    let spoke = BridgeSpoke(bus: clientBus, configuration: configuration, identity: testIdentity("spoke"), logger: quietLogger())
    serverBus.attach(hub)
    clientBus.attach(spoke)
    let mesh = TestMesh(serverBus: serverBus, clientBus: clientBus, socketPath: socketPath, hub: hub, spoke: spoke)
    // 30 s: on a loaded 2-core CI machine a join once took longer than the default 10 s.
    try await withRunningEnds([{ try await hub.run() }, { try await spoke.run() }], until: "the spoke joined the hub", { spoke.isConnected }, mesh: mesh, body: body)
}

/// Runs both ends of a split mesh for the length of `body`, which starts
/// once `joined` holds (at most 30 s), and stops them after it.
func withRunningEnds(
    _ ends: [@Sendable () async throws -> Void], until what: String, _ joined: @escaping @Sendable () -> Bool,
    mesh: TestMesh, body: @escaping @Sendable (TestMesh) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for end in ends { group.addTask { try await end() } }
        try await waitUntil(what, limit: .seconds(30)) { joined() }
        do {
            try await withTimeLimit("the test body finished") { try await body(mesh) }
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
    }
}

/// Where tests make their files: `$TMPDIR` when it is short, else `/tmp`.
///
/// `ops/test.sh` gives each run a scratch directory of its own in `TMPDIR`
/// and removes it after the run, so what the tests leave (sockets, stores,
/// databases: 3 GB and a thousand directories a run) does not pile up.
/// A long `TMPDIR` is not used: socket paths are limited to 103 bytes.
public let testScratchRoot: String = {
    var root = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
    while root.count > 1, root.hasSuffix("/") { root.removeLast() }
    return root.hasPrefix("/") && root.utf8.count <= 32 ? root : "/tmp"
}()

/// A short socket path in a fresh directory under `testScratchRoot`
/// (socket paths are limited to 103 bytes).
public func temporarySocketPath() -> String {
    let directory = "\(testScratchRoot)/flt-\(UInt32.random(in: 0 ... .max))"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory + "/bus.sock"
}

/// A bus for a test node named `name` whose requests never time out in
/// the process, however busy the machine (``BusClock/standing()``): for
/// tests of answers, not deadlines. A request that leaves it spends
/// `deadline` in real time on the wire.
public func standingBus(_ name: String, deadline: Duration = .seconds(20)) -> MessageBus {
    var configuration = BusConfiguration()
    configuration.clock = .standing()
    configuration.defaultDeadline = deadline
    configuration.nodeName = name
    return MessageBus(configuration: configuration)
}

/// A node identity for tests.
public func testIdentity(_ name: String, role: NodeIdentity.Role = .node) -> NodeIdentity {
    NodeIdentity(nodeName: name, role: role, softwareVersion: "test", startedAtUnixMs: 0)
}

/// A logger that stays quiet unless a test fails loudly.
public func quietLogger() -> Logger {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return logger
}

/// Polls `condition` every 5 ms until it holds, failing after `limit`
/// (a bound against hangs, not a timing assertion).
///
/// The default is 30 s, not 10: the test process runs hundreds of tests on
/// a concurrency pool of one thread per core, and on a 2-core machine one
/// hop between services took 2.5 s while the run started. Waits of 10 s
/// for work that crosses several services gave up in 4 of 16 full runs.
public func waitUntil(_ what: String, limit: Duration = .seconds(30), _ condition: () async -> Bool) async throws {
    let end = ContinuousClock.now + limit
    while !(await condition()) {
        guard ContinuousClock.now < end else { throw WaitTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(5))  // safe: bounded test polling, never a timing assertion
    }
}

/// `waitUntil` gave up.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let what: String
    public init(what: String) { self.what = what }
    public var description: String { "gave up waiting until \(what)" }
}
