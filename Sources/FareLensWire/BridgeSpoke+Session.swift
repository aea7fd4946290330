import FareLensBus
import FareLensMessages
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization

extension BridgeSpoke {
    /// One connection to the hub: connect, hello, wait for WELCOME, redeliver
    /// unacknowledged durable events, serve until the connection closes.
    ///
    /// - Parameter onJoined: called once the hub has welcomed this node.
    /// - Throws: ``WireProtocolError`` when the socket is missing or refuses,
    ///   or the hub refuses the hello (its reason is in the message).
    public func session(onJoined: @escaping @Sendable () -> Void = {}) async throws(WireProtocolError) {
        let connection = try await connect()
        connection.send(helloEnvelope())
        let gaveUp = NIOLockedValueBox(false)
        let timeout = connection.channel.eventLoop.scheduleTask(in: TimeAmount(configuration.helloTimeout)) {
            // The welcome came in time; this task has just not read it yet (a loaded machine).
            guard !connection.hasReceived else { return }
            gaveUp.withLockedValue { $0 = true }
            connection.close(reason: "no welcome within \(self.configuration.helloTimeout)")
        }
        var iterator = connection.inbound.makeAsyncIterator()
        let first = await iterator.next()
        timeout.cancel()
        guard let first, first.kind == .welcome else {
            connection.channel.close(promise: nil)
            // This node's own timeout is not the hub's refusal: it was reported as "the hub closed the connection".
            if first == nil, gaveUp.withLockedValue({ $0 }) {
                throw .socketUnavailable(configuration.socketPath, reason: "the hub sent no welcome within \(configuration.helloTimeout)")
            }
            let reason = first.map { $0.kind == .goodbye ? $0.error.message : "expected WELCOME, got \($0.kind)" } ?? "the hub closed the connection"
            throw .socketUnavailable(configuration.socketPath, reason: "hub refused this node: \(reason)")
        }
        guard first.hello.protocolVersion == wireProtocolVersion else {
            connection.channel.close(promise: nil)
            throw .unsupportedVersion(first.hello.protocolVersion, supported: wireProtocolVersion)
        }
        // Redeliver before any new event can use the connection, so events
        // from this node still arrive in the order they were published.
        let joined = apply(first.routes, connection: connection) {
            self.outbox.forEachUnacknowledged { connection.send($0) }
        }
        // A stop that came while connecting found no connection to close:
        // close this one now, or the session would outlive its node.
        guard joined else {
            connection.close(reason: "node \(identity.nodeName) is shutting down")
            return
        }
        logger.info("joined the hub", metadata: ["socket": "\(configuration.socketPath)", "hub": "\(first.hello.nodeName)"])
        onJoined()

        let bus = self.bus, logger = self.logger, outbox = self.outbox
        await ConnectionLoop(
            connection: connection, configuration: configuration, peerName: first.hello.nodeName,
            answer: { await bus.answer($0, isAdmin: $0.callerIsAdmin) },
            deliver: { envelope in
                // A durable event is acknowledged once every local
                // subscriber is done with it, not when it is queued: a
                // crash before then gets it redelivered.
                guard envelope.event.durable else { return await bus.deliver(envelope, logger: logger) }
                let tag = envelope.correlationID
                await bus.deliver(envelope, logger: logger) { connection.send(.acknowledgement([tag])) }
            },
            acknowledge: { outbox.acknowledge($0) },
            routes: { _ = self.apply($0, connection: connection) }
        ).run()
        state.withLockedValue { state in
            if state.connection === connection {
                state.connection = nil
                state.remoteServices = []
            }
        }
        logger.notice("left the hub", metadata: ["socket": "\(configuration.socketPath)"])
    }

    private func connect() async throws(WireProtocolError) -> PeerConnection {
        let path = configuration.socketPath
        try UnixSocketListener.checkPathLength(path)
        let limits = configuration.limits
        let logger = self.logger, factory = configuration.metricsFactory
        let holder = ConnectionHolder()
        do {
            _ = try await ClientBootstrap(group: executor.eventLoop)
                .channelInitializer { channel in
                    let connection = PeerConnection(channel: channel, logger: logger, limits: limits, metrics: ConnectionMetrics(peer: ConnectionMetrics.hubPeer, factory: factory))
                    holder.connection = connection
                    return channel.eventLoop.makeCompletedFuture {
                        try BridgePipeline.install(on: channel, connection: connection)
                    }
                }
                .connect(unixDomainSocketPath: path).get()
        } catch {
            throw .socketUnavailable(path, reason: Self.describe(error))
        }
        return holder.connection!
    }

    private static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("ENOENT") || text.contains("No such file") { return "no such socket (is a node listening?)" }
        if text.contains("ECONNREFUSED") || text.contains("Connection refused") { return "connection refused (no node is listening)" }
        if text.contains("EACCES") || text.contains("Permission denied") { return "permission denied (socket mode or group)" }
        return text
    }

    private func helloEnvelope() -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .hello
        envelope.hello = WireHello(identity: identity, services: bus.localAddresses, topics: bus.wantedTopics)
        return envelope
    }

    /// Learns what the rest of the mesh hosts and wants.
    /// `whileLocked` runs before any other sender can see the connection.
    /// - Returns: false, changing nothing, when the spoke is stopping.
    @discardableResult
    func apply(_ routes: WireRoutes, connection: PeerConnection, whileLocked: () -> Void = {}) -> Bool {
        let others = routes.nodes.filter { $0.nodeName != identity.nodeName }
        return state.withLockedValue { state in
            guard !state.stopping else { return false }
            state.connection = connection
            state.remoteServices = Set(others.flatMap(\.services))
            state.remoteTopics = Set(others.flatMap(\.topicsWanted))
            whileLocked()
            return true
        }
    }
}

/// Carries the connection out of the channel initializer (which runs once,
/// on the event loop, before `connect` returns). A mutex instead of an
/// unchecked class: checked by the compiler, and uncontended here.
private final class ConnectionHolder: Sendable {
    private let value = Mutex<PeerConnection?>(nil)

    var connection: PeerConnection? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
