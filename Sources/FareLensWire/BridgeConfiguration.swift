#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Metrics

/// Settings of a node's bridge end, listening or connecting.
public struct BridgeConfiguration: Sendable {
    /// The Unix socket path (at most ``maxSocketPathBytes`` bytes).
    public var socketPath: String
    /// Frame caps and compression policy.
    public var limits: WireLimits = WireLimits()
    /// Group that may connect: the socket file becomes 0660 and owned by it;
    /// without one it is 0600 (owner only).
    public var socketGroup: String?
    /// Peer uids allowed to connect (checked with `SO_PEERCRED`); the
    /// node's own uid by default.
    public var allowedUIDs: Set<UInt32> = [UInt32(getuid())]
    /// Peer uids whose admin clients may call admin-only addresses; the
    /// node's own uid and root by default.
    public var adminUIDs: Set<UInt32> = [UInt32(getuid()), 0]
    /// The cap on a peer's durable backlog (`bridge.durableBacklog`): events
    /// kept for it and not yet acknowledged, on disk when journaled. At the
    /// cap a durable publish fails at once with `overloaded`; it never waits
    /// (docs/bus.md, "A full backlog").
    public var durableBacklog: Int = 100_000
    /// Where the bridge's metrics go (`farelens_bridge_*`); tests pass a `TestMetrics`.
    public var metricsFactory: any MetricsFactory = MetricsSystem.factory
    /// Where durable outboxes are journaled so they survive a crash
    /// (`<dataDir>/bridge-outbox.sqlite` for a node); nil keeps them in memory only.
    public var outboxJournal: OutboxJournal?
    /// Non-durable events received but not yet delivered on one connection
    /// before further ones are dropped (counted).
    public var inboundEventBuffer: Int = 4096
    /// Durable events received on one connection and not yet delivered that
    /// the node holds while it goes on reading the socket: by default the
    /// most a peer with the same ``durableBacklog`` can have unacknowledged.
    /// Reading on keeps the responses and acknowledgements that arrive
    /// behind those events flowing: a subscriber that asks the same peer
    /// something while it handles an event would otherwise wait for a
    /// response stuck behind the very events it has not consumed
    /// (docs/decisions/0009). Beyond this many, or ``inboundDurableBytes``
    /// of payload, the connection stops being read until there is room.
    public var inboundDurableEvents: Int = 100_000
    /// The payload bytes of durable events held as ``inboundDurableEvents`` describes.
    public var inboundDurableBytes: Int = 64 << 20
    /// Requests a peer may have in flight on one connection before further
    /// ones fail with `overloaded`.
    public var maxInFlightPerConnection: Int = 4096
    /// How long a connecting peer has to send its hello.
    public var helloTimeout: Duration = .seconds(2)
    /// How long a peer refused at the handshake has to close after the hub's
    /// GOODBYE (the hub reads on meanwhile, docs/wire-protocol.md § 5.1)
    /// before the hub closes the connection itself.
    public var refusalGrace: Duration = .seconds(2)
    /// First and longest wait between reconnect attempts (doubling).
    public var reconnectBackoff: (first: Duration, longest: Duration) = (.milliseconds(50), .seconds(2))
    /// How a spoke waits out one reconnect backoff: real time by default. A
    /// test gives its own, so a spoke tries again when the test says, not
    /// because real time passed (`BridgeReconnectBackoffTests`). It throws
    /// when the spoke's task is cancelled.
    public var waitBeforeReconnecting: @Sendable (Duration) async throws -> Void = { backoff in
        try await Task.sleep(for: backoff)  // safe: reconnect backoff; cancelled on shutdown
    }

    /// Creates a configuration for `socketPath` with defaults elsewhere.
    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The longest socket path accepted: 103 bytes. Linux's `sun_path` would
    /// take 107, but SwiftNIO refuses anything over 103 on every platform
    /// (macOS's `sun_path` is 104 bytes with its terminating NUL), so that is
    /// the real limit, checked up front to give a clear error.
    public static let maxSocketPathBytes = 103
}

/// Who this process is in the mesh, as its hello says.
public struct NodeIdentity: Sendable {
    /// A farelens node hosting services, or an admin client.
    public enum Role: Sendable { case node, admin }
    /// Unique within the mesh.
    public var nodeName: String
    /// Node or admin client.
    public var role: Role
    /// The process id.
    public var pid: Int32
    /// The farelens version.
    public var softwareVersion: String
    /// Process start, Unix epoch milliseconds.
    public var startedAtUnixMs: Int64
    /// Services hosted here, announced even before they register handlers
    /// (the hello lists these plus every address with a local handler).
    public var services: [String] = []

    /// Creates an identity for this process.
    public init(nodeName: String, role: Role = .node, softwareVersion: String, startedAtUnixMs: Int64, pid: Int32? = nil) {
        self.nodeName = nodeName
        self.role = role
        self.pid = pid ?? getpid()
        self.softwareVersion = softwareVersion
        self.startedAtUnixMs = startedAtUnixMs
    }
}

/// The protocol version this build speaks (docs/wire-protocol.md).
public let wireProtocolVersion: UInt32 = 1
