import FareLensBus
public import FareLensMessages
import Logging

extension BridgeHub {
    /// Answers a request from peer `from`: admin-only addresses need an admin
    /// peer; local handlers answer first, otherwise the node hosting the
    /// address does, with the remaining deadline.
    nonisolated(nonsending) func route(_ request: WireEnvelope, from peer: String, isAdmin: Bool) async -> WireEnvelope {
        let address = ServiceAddress(request.address)
        if request.address.hasPrefix("admin"), !isAdmin {
            return .response(to: request.correlationID, result: .failure(.forbidden(address)), typeName: "")
        }
        if bus.hasHandler(at: address) {
            return await bus.answer(request, isAdmin: isAdmin)
        }
        guard let target = connection(hosting: address, except: peer) else {
            // Addresses served over NATS, when this node has it (``relayBeyond(_:)``).
            guard let beyond = state.withLock({ $0.beyond }), beyond.hosts(address) else {
                return .response(to: request.correlationID, result: .failure(.serviceUnavailable(address)), typeName: "")
            }
            return await forward(request, isAdmin: isAdmin) { forwarded throws(BusError) in try await beyond.call(forwarded, dueAt: request.dueAt) }
        }
        return await forward(request, isAdmin: isAdmin) { forwarded throws(BusError) in try await target.call(forwarded, dueAt: request.dueAt) }
    }

    /// Sends `request` on through `call`, marked with the hub's verdict on
    /// the caller's admin right; the reply (or the failure) answers the
    /// caller under its own correlation id.
    private nonisolated(nonsending) func forward(
        _ request: WireEnvelope, isAdmin: Bool, through call: (WireEnvelope) async throws(BusError) -> WireEnvelope
    ) async -> WireEnvelope {
        var forwarded = request
        forwarded.callerIsAdmin = isAdmin
        do {
            var reply = try await call(forwarded)
            reply.correlationID = request.correlationID
            return reply
        } catch {
            return .response(to: request.correlationID, result: .failure(error), typeName: "")
        }
    }

    /// An event from peer `from`: delivered to the hub's subscribers, then
    /// relayed to every other node that wants it. A durable one is
    /// acknowledged to its sender only once every relayed copy is.
    func relayReceived(_ envelope: WireEnvelope, from peer: String, connection: PeerConnection) async {
        guard envelope.event.durable else {
            if bus.hasSubscribers(topic: envelope.topic) { await bus.deliver(envelope, logger: logger) }
            try? await relay(envelope, except: peer, onAllAcknowledged: nil)  // safe: only durable copies are ever refused
            return
        }
        // Acknowledged to the sender once the hub's own subscribers are done
        // with it and every relayed copy is acknowledged.
        let tag = envelope.correlationID
        let countdown = AcknowledgementCountdown(count: 2) { connection.send(.acknowledgement([tag])) }
        if bus.hasSubscribers(topic: envelope.topic) {
            await bus.deliver(envelope, logger: logger) { countdown.arrive() }
        } else {
            countdown.arrive()
        }
        do {
            try await relay(envelope, except: peer) { countdown.arrive() }
        } catch {
            // A node whose backlog is full did not get its copy (counted in
            // `farelens_bridge_durable_rejected_total`). That copy counts as
            // settled so the sender's acknowledgement still comes: holding it
            // back would only make the sender redeliver into the same full
            // backlog (docs/bus.md, "A full backlog").
            logger.warning("durable event not kept for a node whose backlog is full", metadata: ["from": "\(peer)", "topic": "\(envelope.topic)", "reason": "\(error)"])
        }
    }

    /// The nodes (other than `excluded`) that want events of `topic`: the
    /// ones that host services get a copy, admin clients watch one.
    struct Recipients {
        var targets: [(name: String, connection: PeerConnection?, outbox: DurableOutbox)]
        var watchers: [PeerConnection]
        var isEmpty: Bool { targets.isEmpty && watchers.isEmpty }
    }

    func recipients(of topic: String, except excluded: String?) -> Recipients {
        state.withLock { state in
            let wanting = state.peers.filter { name, peer in name != excluded && peer.hello.wants(topic) }
            return Recipients(
                targets: wanting.filter { !$0.value.isAdmin }.map { (name: $0.key, connection: $0.value.connection, outbox: $0.value.outbox) },
                watchers: wanting.filter { $0.value.isAdmin }.compactMap(\.value.connection)
            )
        }
    }

    /// Sends an event to every node (other than `excluded`) that wants its
    /// topic. Durable events go through each node's outbox, so a node that is
    /// away gets them when it returns; `onAllAcknowledged` runs once every
    /// copy is acknowledged or refused (at once when there is none).
    ///
    /// - Throws: ``BusError`` `overloaded` when a node's backlog is full; the
    ///   other nodes still get their copies.
    func relay(_ envelope: WireEnvelope, except excluded: String?, onAllAcknowledged: (@Sendable () -> Void)?) async throws(BusError) {
        try await relay(envelope, to: recipients(of: envelope.topic, except: excluded), onAllAcknowledged: onAllAcknowledged)
    }

    /// ``relay(_:except:onAllAcknowledged:)`` to recipients already looked up.
    func relay(_ envelope: WireEnvelope, to recipients: Recipients, onAllAcknowledged: (@Sendable () -> Void)?) async throws(BusError) {
        let (targets, watchers) = (recipients.targets, recipients.watchers)
        if !watchers.isEmpty { watch(envelope, by: watchers) }
        guard envelope.event.durable else {
            for target in targets { target.connection?.send(envelope) }
            return
        }
        guard !targets.isEmpty else {
            onAllAcknowledged?()
            return
        }
        var onAcknowledged: (@Sendable () -> Void)?
        if let onAllAcknowledged {
            let countdown = AcknowledgementCountdown(count: targets.count, done: onAllAcknowledged)
            onAcknowledged = { countdown.arrive() }
        }
        var refused: BusError?
        for target in targets {
            do throws(BusError) {
                let tagged = try target.outbox.append(envelope, onAcknowledged: onAcknowledged)
                // Sent under the lock, so it cannot overtake a redelivery in progress.
                state.withLock { $0.peers[target.name]?.connection?.send(tagged) }
            } catch {
                onAcknowledged?()  // refused: this copy is settled
                refused = refused ?? error
            }
        }
        if let refused { throw refused }
    }

    /// Sends admin clients that watch the topic a best-effort copy: never
    /// journaled, never acknowledged (a durable event goes as a plain one,
    /// without a delivery tag), dropped when its connection cannot keep up.
    private func watch(_ envelope: WireEnvelope, by watchers: [PeerConnection]) {
        var copy = envelope
        copy.event.durable = false
        copy.correlationID = 0
        for watcher in watchers where watcher.channel.isWritable {
            watcher.send(copy)
        }
    }

    /// Every node the hub knows, for `farelensctl status`.
    public func meshStatus() -> MeshStatusResponse {
        var response = MeshStatusResponse()
        let own = ownHello(includingBeyond: false)
        var hub = NodeStatus(own, connected: true)
        hub.isHub = true
        let (peers, beyond) = state.withLock { state in
            (state.peers.values.filter { !$0.isAdmin }.map { NodeStatus($0.hello, connected: $0.connection != nil, pending: $0.outbox.count) }, state.beyond)
        }
        // Then the nodes of its NATS namespace, if it has one.
        let others = peers + (beyond?.nodeStatuses() ?? [])
        response.nodes = [hub] + others.sorted { $0.nodeName < $1.nodeName }
        return response
    }
}

extension NodeStatus {
    /// A node's status from its hello.
    package init(_ hello: WireHello, connected: Bool, pending: Int = 0) {
        self.init()
        nodeName = hello.nodeName
        pid = hello.pid
        services = hello.services
        softwareVersion = hello.softwareVersion
        startedAtUnixMs = hello.startedAtUnixMs
        self.connected = connected
        pendingDurableEvents = UInt64(pending)
        topicsWanted = hello.topicsWanted
    }
}
