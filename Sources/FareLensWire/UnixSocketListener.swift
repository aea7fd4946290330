import FareLensBus
import Foundation
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Binds the hub's Unix socket safely: refuses a path that is too long or
/// where another node is listening, takes the path's ``SocketPathLock``,
/// removes a stale socket file left by a crashed node, and restricts the file
/// to its owner (0600) or owner and group (0660 with `socketGroup`).
enum UnixSocketListener {
    /// How long a new hub waits for one still shutting down on the same path.
    static let shutdownPatience = Duration.seconds(2)

    /// A bound server channel and the lock that makes its socket file ours.
    struct Bound {
        let channel: any Channel
        let lock: SocketPathLock
    }

    static func bind(
        configuration: BridgeConfiguration, group: MultiThreadedEventLoopGroup, logger: Logger,
        accepted: @escaping @Sendable (PeerConnection, UInt32?) -> Void
    ) async throws(WireProtocolError) -> Bound {
        let path = configuration.socketPath
        try checkPathLength(path)
        let lock = try await SocketPathLock.acquire(for: path, patience: shutdownPatience) {
            await someoneListens(at: path, group: group)
        }
        try await removeStaleSocket(at: path, group: group)
        let limits = configuration.limits
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                let metrics = ConnectionMetrics(peer: ConnectionMetrics.acceptedPeer, factory: configuration.metricsFactory)
                let connection = PeerConnection(channel: channel, logger: logger, limits: limits, metrics: metrics)
                do {
                    try BridgePipeline.install(on: channel, connection: connection)
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return PeerCredentials.uid(of: channel).map { uid in accepted(connection, uid) }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(unixDomainSocketPath: path).get()
        } catch {
            throw .socketUnavailable(path, reason: "cannot bind: \(error)")
        }
        do {
            try restrictPermissions(path: path, group: configuration.socketGroup)
        } catch {
            try? await channel.close()
            throw error
        }
        ConnectionMetrics.makeAll(peers: [ConnectionMetrics.acceptedPeer, ConnectionMetrics.adminClientsPeer], factory: configuration.metricsFactory)
        return Bound(channel: channel, lock: lock)
    }

    /// Refuses a path longer than ``BridgeConfiguration/maxSocketPathBytes``.
    static func checkPathLength(_ path: String) throws(WireProtocolError) {
        guard path.utf8.count <= BridgeConfiguration.maxSocketPathBytes else {
            throw .socketUnavailable(path, reason: "path is \(path.utf8.count) bytes; Unix sockets allow at most \(BridgeConfiguration.maxSocketPathBytes)")
        }
    }

    /// Removes the socket file at shutdown (SwiftNIO has usually unlinked it
    /// already when the server channel closed), then lets go of the path.
    /// Only the lock's holder can have bound the file there, so it is ours.
    static func unbind(_ path: String, lock: SocketPathLock) {
        try? FileManager.default.removeItem(atPath: path)
        lock.release()
    }

    /// Whether a node answers on the socket at `path`.
    private static func someoneListens(at path: String, group: MultiThreadedEventLoopGroup) async -> Bool {
        guard FileManager.default.fileExists(atPath: path),
              let probe = try? await ClientBootstrap(group: group).connect(unixDomainSocketPath: path).get()
        else { return false }
        try? await probe.close()
        return true
    }

    /// A socket file nobody answers on is left from a crashed node: remove it.
    /// One somebody answers on belongs to a live node (one that takes no
    /// lock, such as an older version): refuse.
    private static func removeStaleSocket(at path: String, group: MultiThreadedEventLoopGroup) async throws(WireProtocolError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if await someoneListens(at: path, group: group) {
            throw .socketUnavailable(path, reason: "another node is already listening there")
        }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw .socketUnavailable(path, reason: "cannot remove the stale socket file: \(error)")
        }
    }

    private static func restrictPermissions(path: String, group: String?) throws(WireProtocolError) {
        if let group {
            guard let entry = getgrnam(group) else {
                throw .socketUnavailable(path, reason: "group '\(group)' does not exist (bridge.socketGroup)")
            }
            guard chown(path, uid_t(bitPattern: -1), entry.pointee.gr_gid) == 0 else {
                throw .socketUnavailable(path, reason: "cannot give the socket to group '\(group)': \(String(cString: strerror(errno)))")
            }
        }
        guard chmod(path, group == nil ? 0o600 : 0o660) == 0 else {
            throw .socketUnavailable(path, reason: "cannot set the socket's mode: \(String(cString: strerror(errno)))")
        }
    }
}
