import FareLensBus
import Foundation
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Binds the hub's Unix socket safely: refuses a path that is too long or
/// where another node is listening, removes a stale socket file left by a
/// crashed node, and restricts the file to its owner (0600) or owner and
/// group (0660 with `socketGroup`).
enum UnixSocketListener {
    static func bind(
        configuration: BridgeConfiguration, group: MultiThreadedEventLoopGroup, logger: Logger,
        accepted: @escaping @Sendable (PeerConnection, UInt32?) -> Void
    ) async throws(WireProtocolError) -> any Channel {
        let path = configuration.socketPath
        try checkPathLength(path)
        try await removeStaleSocket(at: path, group: group)
        let limits = configuration.limits
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelInitializer { channel in
                let connection = PeerConnection(channel: channel, logger: logger)
                do {
                    try BridgePipeline.install(on: channel, limits: limits, connection: connection, metrics: ConnectionMetrics(peer: "accepted"))
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
        return channel
    }

    /// Refuses a path longer than ``BridgeConfiguration/maxSocketPathBytes``.
    static func checkPathLength(_ path: String) throws(WireProtocolError) {
        guard path.utf8.count <= BridgeConfiguration.maxSocketPathBytes else {
            throw .socketUnavailable(path, reason: "path is \(path.utf8.count) bytes; Unix sockets allow at most \(BridgeConfiguration.maxSocketPathBytes)")
        }
    }

    /// The device and inode of the file at `path`, to recognise our own
    /// socket file later.
    static func fileIdentity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Removes the socket file at shutdown, but only if it is still the one
    /// this hub bound: a hub that replaced it (a restart on the same path
    /// while this one was closing) keeps its file.
    static func removeSocketFile(_ path: String, boundAs identity: (device: UInt64, inode: UInt64)?) {
        guard let identity, let current = fileIdentity(path), current == identity else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A socket file nobody answers on is left from a crashed node: remove it.
    /// One somebody answers on belongs to a live node: refuse.
    private static func removeStaleSocket(at path: String, group: MultiThreadedEventLoopGroup) async throws(WireProtocolError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if let probe = try? await ClientBootstrap(group: group).connect(unixDomainSocketPath: path).get() {
            try? await probe.close()
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
