public import FareLensBus
import FareLensMessages
import Foundation
public import Logging
import NIOCore
public import NIOPosix
public import ServiceLifecycle
import Synchronization

/// The listening end of the bridge: accepts spokes and admin clients on a
/// Unix socket, routes requests between them and its own bus, and forwards
/// events to every node that wants their topic.
///
/// Attach it to the bus (``MessageBus/attach(_:)``) and run it as a
/// `Service`; it stops on graceful shutdown, closing every connection.
public final class BridgeHub: Service, BusTransport {
    let bus: MessageBus
    let configuration: BridgeConfiguration
    let identity: NodeIdentity
    let logger: Logger
    let eventLoopGroup: MultiThreadedEventLoopGroup
    let onListening: @Sendable () -> Void
    let state = Mutex(State())

    struct Peer {
        var hello: WireHello
        var connection: PeerConnection?
        var isAdmin: Bool
        let outbox: DurableOutbox
    }

    struct State {
        var peers: [String: Peer] = [:]
        var server: (any Channel)?
        var stopping = false
        /// Where requests go that neither a local handler nor a spoke serves.
        var beyond: (any EnvelopeRelay)?
    }

    /// Sends requests of this hub's clients that neither a local handler nor
    /// a spoke serves through `relay` (the node's NATS transport).
    public func relayBeyond(_ relay: any EnvelopeRelay) {
        state.withLock { $0.beyond = relay }
    }

    /// Creates a hub for `bus`.
    ///
    /// - Parameter onListening: called once the socket is bound and its
    ///   permissions set.
    public init(
        bus: MessageBus, configuration: BridgeConfiguration, identity: NodeIdentity, logger: Logger,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton, onListening: @escaping @Sendable () -> Void = {}
    ) {
        self.bus = bus
        self.configuration = configuration
        self.identity = identity
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.onListening = onListening
        // Nodes known from an earlier run are away until they rejoin; their
        // journaled durable events wait for them, and new ones on the topics
        // they want keep queueing.
        if let journal = configuration.outboxJournal {
            let known = journal.knownPeers().filter { $0.nodeName != identity.nodeName }
            state.withLock { state in
                for hello in known {
                    state.peers[hello.nodeName] = Peer(
                        hello: hello, connection: nil, isAdmin: false,
                        outbox: DurableOutbox(capacity: configuration.durableBacklog, peer: hello.nodeName, journal: journal, metricsFactory: configuration.metricsFactory)
                    )
                }
            }
        }
    }

    /// Listens until graceful shutdown or cancellation.
    ///
    /// - Throws: ``WireProtocolError`` `socket-unavailable` when the socket
    ///   cannot be bound (path too long, directory missing, another node
    ///   already listening there).
    public func run() async throws {
        let (accepted, acceptedContinuation) = AsyncStream.makeStream(of: (PeerConnection, UInt32?).self)
        let bound = try await UnixSocketListener.bind(
            configuration: configuration, group: eventLoopGroup, logger: logger
        ) { connection, uid in acceptedContinuation.yield((connection, uid)) }
        let server = bound.channel
        let stopEarly = state.withLock { state in
            state.server = server
            return state.stopping
        }
        logger.info("bridge listening", metadata: ["socket": "\(configuration.socketPath)"])
        onListening()
        if stopEarly { stop(acceptedContinuation) }
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    for await (connection, uid) in accepted {
                        group.addTask { await self.serve(connection, uid: uid) }
                    }
                }
            } onGracefulShutdown: {
                self.stop(acceptedContinuation)
            }
        } onCancel: {
            self.stop(acceptedContinuation)
        }
        // SwiftNIO unlinks a Unix server socket's path when the channel
        // actually closes, on its event loop, after `close` was asked for.
        // Wait for that while still holding the path's lock: released
        // earlier, a successor could bind first and lose its new socket file
        // to this late unlink.
        server.close(promise: nil)
        try? await server.closeFuture.get()
        UnixSocketListener.unbind(configuration.socketPath, lock: bound.lock)
    }

    private func stop(_ accepted: AsyncStream<(PeerConnection, UInt32?)>.Continuation) {
        let (server, connections) = state.withLock { state in
            state.stopping = true
            return (state.server, state.peers.values.compactMap(\.connection))
        }
        server?.close(promise: nil)
        accepted.finish()
        for connection in connections { connection.close(reason: "hub \(identity.nodeName) is shutting down") }
    }

    // MARK: BusTransport

    public func hosts(_ address: ServiceAddress) -> Bool {
        connection(hosting: address, except: nil) != nil
    }

    public nonisolated(nonsending) func send<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
        guard let connection = connection(hosting: address, except: nil) else { throw .serviceUnavailable(address) }
        return try await connection.request(request, to: address, context: context)
    }

    public func forward<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError) {
        // Looked up once, before encoding: a node with no peer that wants the topic
        // (a node alone: every search's SearchCompleted) encodes nothing for nobody.
        let recipients = recipients(of: metadata.topic.name, except: nil)
        guard !recipients.isEmpty else { return }
        let envelope: WireEnvelope
        do {
            envelope = try .event(event, metadata: metadata)
        } catch {
            logger.error("event not forwarded: cannot encode", metadata: ["type": "\(E.wireTypeName)", "reason": "\(error)"])
            return
        }
        // The local subscribers have it; an error tells the publisher that a
        // node whose backlog is full does not.
        try await relay(envelope, to: recipients, onAllAcknowledged: nil)
    }

    /// The live connection of the peer named `name` (tests, status).
    func connection(named name: String) -> PeerConnection? {
        state.withLock { $0.peers[name]?.connection }
    }

    func connection(hosting address: ServiceAddress, except excluded: String?) -> PeerConnection? {
        state.withLock { state in
            state.peers.first { name, peer in
                // Admin clients host nothing (docs/wire-protocol.md), whatever their hello lists.
                name != excluded && !peer.isAdmin && peer.connection != nil && peer.hello.services.contains(address.name)
            }?.value.connection
        }
    }
}
