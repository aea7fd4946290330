public import FareLensBus
import FareLensMessages
import Logging
import NIOCore

extension BridgeHub {
    /// Runs one accepted connection: checks the peer's uid and hello,
    /// registers it, redelivers its unacknowledged durable events, then
    /// serves it until it closes.
    func serve(_ connection: PeerConnection, uid: UInt32?) async {
        guard let uid, configuration.allowedUIDs.contains(uid) else {
            refuse(connection, .peerNotAllowed(uid: uid ?? UInt32.max))
            return
        }
        let timeout = connection.channel.eventLoop.scheduleTask(in: TimeAmount(configuration.helloTimeout)) {
            // The hello came in time; this task has just not read it yet (a loaded machine).
            guard !connection.hasReceived else { return }
            let reason = "no hello within \(self.configuration.helloTimeout)"
            self.logger.warning("refusing bridge connection", metadata: ["reason": "\(reason)", "uid": "\(uid)"])
            connection.close(reason: reason)
        }
        var iterator = connection.inbound.makeAsyncIterator()
        let first = await iterator.next()
        timeout.cancel()
        guard let first else { return }
        guard first.kind == .hello, first.hasHello else {
            refuse(connection, .unexpectedMessage("expected HELLO as the first message, got \(first.kind)"))
            return
        }
        let hello = first.hello
        guard hello.protocolVersion == wireProtocolVersion else {
            refuse(connection, .unsupportedVersion(hello.protocolVersion, supported: wireProtocolVersion))
            return
        }
        guard !hello.nodeName.isEmpty, hello.nodeName != identity.nodeName else {
            refuse(connection, .malformedEnvelope("hello needs a node name other than the hub's ('\(identity.nodeName)')"))
            return
        }
        let isAdmin = hello.role == .admin
        if isAdmin, !configuration.adminUIDs.contains(uid) {
            refuse(connection, .peerNotAdmin(uid: uid))
            return
        }
        // A node's counters by its name; admin clients (a new name per CLI run) share one series.
        connection.metrics?.name(isAdmin ? ConnectionMetrics.adminClientsPeer : hello.nodeName)
        var welcome = WireEnvelope()
        welcome.kind = .welcome
        welcome.hello = ownHello(for: hello.nodeName)
        welcome.routes = routes(including: hello, for: hello.nodeName)
        guard let outbox = register(hello, connection: connection, isAdmin: isAdmin, welcome: welcome) else {
            refuse(connection, .duplicateNode(hello.nodeName))
            return
        }
        let name = hello.nodeName
        logger.info("peer joined", metadata: ["peer": "\(name)", "pid": "\(hello.pid)", "services": "\(hello.services.joined(separator: ","))"])
        // An admin client is not a route: its arrival and departure change
        // nothing, unless it watches topics the nodes must now send here.
        let watches = isAdmin && !hello.topicsWanted.isEmpty
        if !isAdmin || watches { broadcastRoutes(except: name) }

        await ConnectionLoop(
            connection: connection, configuration: configuration, peerName: name,
            answer: { await self.route($0, from: name, isAdmin: isAdmin) },
            deliver: { await self.relayReceived($0, from: name, connection: connection) },
            acknowledge: { outbox.acknowledge($0) }
        ).run()

        unregister(name, connection: connection)
        if !isAdmin || watches { broadcastRoutes(except: nil) }
        logger.info("peer left", metadata: ["peer": "\(name)"])
    }

    private func refuse(_ connection: PeerConnection, _ error: WireProtocolError) {
        logger.warning("refusing bridge connection", metadata: ["reason": "\(error)"])
        connection.refuse(reason: error.description, grace: TimeAmount(configuration.refusalGrace))
    }

    /// Records the peer, then — before any other sender can see the new
    /// connection — sends the WELCOME and redelivers its unacknowledged
    /// durable events in order. Nil when a live peer already has the name.
    private func register(_ hello: WireHello, connection: PeerConnection, isAdmin: Bool, welcome: WireEnvelope) -> DurableOutbox? {
        state.withLock { state in
            let outbox: DurableOutbox
            if let existing = state.peers[hello.nodeName] {
                guard existing.connection == nil else { return nil }
                outbox = existing.outbox
            } else {
                outbox = DurableOutbox(
                    capacity: configuration.durableBacklog, peer: hello.nodeName,
                    journal: isAdmin ? nil : configuration.outboxJournal, metricsFactory: configuration.metricsFactory
                )
            }
            // A node is remembered across hub restarts (admin clients are not).
            if !isAdmin { configuration.outboxJournal?.remember(hello) }
            state.peers[hello.nodeName] = Peer(hello: hello, connection: connection, isAdmin: isAdmin, outbox: outbox)
            connection.send(welcome)
            outbox.forEachUnacknowledged { connection.send($0) }
            return outbox
        }
    }

    /// Marks the peer disconnected. A node is remembered (its outbox keeps
    /// durable events for its return); an admin client is forgotten.
    private func unregister(_ name: String, connection: PeerConnection) {
        state.withLock { state in
            guard let peer = state.peers[name], peer.connection === connection else { return }
            if peer.isAdmin {
                state.peers[name] = nil
            } else {
                state.peers[name]?.connection = nil
            }
        }
    }

    /// The hub's own hello: its local addresses and every topic it relays:
    /// its own subscribers', every known node's (connected or away: an away
    /// node's durable events must still reach the hub to wait in its
    /// backlog) and every connected admin client's watched topics.
    ///
    /// - Parameter recipient: the node this hello is for; the topics only
    ///   it wants are left out, so it does not send the hub events that
    ///   nobody but itself would receive.
    func ownHello(for recipient: String? = nil, includingBeyond: Bool = true) -> WireHello {
        let (relayed, beyond) = state.withLock { state in
            (state.peers.filter { name, peer in name != recipient && (!peer.isAdmin || peer.connection != nil) }
                .flatMap(\.value.hello.topicsWanted), state.beyond)
        }
        var hello = WireHello(identity: identity, services: bus.localAddresses, topics: bus.wantedTopics.union(relayed))
        // Addresses served over NATS are reached through this hub (``relayBeyond(_:)``).
        if includingBeyond, let beyond { hello.services = Array(Set(hello.services).union(beyond.reachableAddresses)).sorted() }
        return hello
    }

    /// Every node as `recipient` should see it: the hub first (its hello
    /// for `recipient`), then connected nodes (not admin clients), plus
    /// `joining` when it is a node that is being welcomed.
    func routes(including joining: WireHello? = nil, for recipient: String? = nil) -> WireRoutes {
        var routes = WireRoutes()
        var others = state.withLock { state in
            state.peers.values.filter { $0.connection != nil && !$0.isAdmin }.map(\.hello)
        }
        if let joining, joining.role == .node { others.append(joining) }
        routes.nodes = [ownHello(for: recipient)] + others.sorted { $0.nodeName < $1.nodeName }
        return routes
    }

    /// Sends the current routes to every connected node but `excluded`,
    /// each with the hub's hello for it; admin clients never get ROUTES
    /// (they route nothing).
    private func broadcastRoutes(except excluded: String?) {
        let recipients = state.withLock { state in
            state.peers.filter { $0.key != excluded && !$0.value.isAdmin }.compactMap { name, peer in peer.connection.map { (name, $0) } }
        }
        for (name, connection) in recipients {
            var envelope = WireEnvelope()
            envelope.kind = .routes
            envelope.routes = routes(for: name)
            connection.send(envelope)
        }
    }
}

extension BridgeHub {
    /// Forgets a node that is away for good: drops the durable events kept
    /// for it (memory and journal) and stops queueing new ones.
    ///
    /// - Returns: how many durable events were dropped.
    /// - Throws: ``ForgetNodeError`` when no such node is known, or it is connected.
    public func forget(_ name: String) throws(ForgetNodeError) -> Int {
        guard name != identity.nodeName else { throw .isThisHub(name) }
        let outbox = try state.withLock { (state) throws(ForgetNodeError) -> DurableOutbox in
            guard let peer = state.peers[name], !peer.isAdmin else { throw .notFound(name) }
            guard peer.connection == nil else { throw .stillConnected(name) }
            state.peers[name] = nil
            return peer.outbox
        }
        let dropped = outbox.discardAll()
        configuration.outboxJournal?.forget(name)
        logger.notice("forgot an away node", metadata: ["peer": "\(name)", "droppedDurableEvents": "\(dropped)"])
        return dropped
    }
}

/// Why a node cannot be forgotten (remote codes `not-found`, `still-connected`).
public struct ForgetNodeError: ServiceError, Equatable {
    public let code: String
    public let message: String

    static func notFound(_ name: String) -> ForgetNodeError {
        ForgetNodeError(code: "not-found", message: "no node named '\(name)' is known to this hub")
    }

    /// The hub was asked to forget itself (`still-connected`: it is, to itself).
    static func isThisHub(_ name: String) -> ForgetNodeError {
        ForgetNodeError(code: "still-connected", message: "'\(name)' is this hub itself; a hub cannot forget itself")
    }

    static func stillConnected(_ name: String) -> ForgetNodeError {
        ForgetNodeError(code: "still-connected", message: "node '\(name)' is connected; stop it first")
    }
}
