#if NATS
import FareLensBus
public import FareLensMessages
import FareLensWire
import Logging

/// Heartbeats: what each node tells the others of itself (its addresses and
/// wanted topics, on `<ns>.node.<name>`), and the registry built from theirs,
/// which routes plain events, fails requests to nodes gone silent, and feeds
/// `farelensctl status`.
extension NATSTransport {
    /// Every address the namespace's other nodes host, from their heartbeats.
    public var reachableAddresses: Set<String> {
        state.withLock { Set($0.registry.nodes.values.flatMap(\.services)) }
    }

    /// The namespace's other nodes as `farelensctl status` lists them (role `nats`).
    public func nodeStatuses() -> [NodeStatus] {
        state.withLock { state in
            state.hellos.values.map { hello in
                var status = NodeStatus(hello, connected: true)
                status.overNats = true
                return status
            }
        }
    }

    /// The other nodes of the namespace, as their heartbeats describe them.
    public var knownNodes: [String: NodeRegistry.Entry] { state.withLock { $0.registry.nodes } }

    /// Publishes this node's heartbeat: its addresses and wanted topics.
    func announce(goodbye: Bool = false) {
        // A heartbeat racing the goodbye must not bring this node back to life.
        guard goodbye || state.withLock({ $0.leaving != .closing }) else { return }
        let hello = WireHello(identity: identity, services: bus.localAddresses, topics: bus.wantedTopics)
        do {
            try connection.publish(subjects.heartbeat(of: identity.nodeName), headers: goodbye ? [(Header.goodbye, "1")] : [], payload: hello.serializedBytes())
        } catch {
            logger.warning("heartbeat not sent", metadata: ["reason": "\(error)"])
        }
    }

    /// A heartbeat (or goodbye) from another node.
    func heard(_ message: NATSMessage) {
        guard let hello = try? WireHello(serializedBytes: message.payload), hello.nodeName != identity.nodeName else { return }
        // A node speaks only for itself: its heartbeat comes on its own subject, which per-node
        // credentials keep for it alone (ops/nats/permissions-per-node.conf). One naming another
        // node — a forged goodbye would fail every request waiting on that node — is ignored.
        let subject = message.subject
        guard subject == subjects.heartbeat(of: hello.nodeName) else {
            if state.withLock({ $0.impostorSubjects.insert(subject).inserted }) {
                logger.warning("heartbeat ignored: it names another node than its subject's", metadata: ["subject": "\(subject)", "names": "\(hello.nodeName)"])
            }
            return
        }
        if message.header(Header.goodbye) != nil {
            let known = state.withLock { state in
                state.hellos[hello.nodeName] = nil
                return state.registry.left(hello.nodeName)
            }
            if known { logger.info("node left the namespace", metadata: ["node": "\(hello.nodeName)"]) }
            failRequestsNobodyServes(left: [hello.nodeName])
            return
        }
        let isNew = state.withLock { state in
            state.hellos[hello.nodeName] = hello
            return state.registry.heard(hello.nodeName, services: Set(hello.services), topics: Set(hello.topicsWanted), at: .now)
        }
        if isNew {
            logger.info("node joined the namespace", metadata: ["node": "\(hello.nodeName)", "services": "\(hello.services.joined(separator: ","))"])
            // Answer at once, so a node that just started learns of this one without waiting a period.
            announce()
        }
    }

    func forgetSilentNodes() {
        let gone = state.withLock { state in
            let gone = state.registry.expire(at: .now)
            for node in gone { state.hellos[node] = nil }
            return gone
        }
        guard !gone.isEmpty else { return }
        logger.warning("nodes went silent and are forgotten", metadata: ["nodes": "\(gone.joined(separator: ","))"])
        failRequestsNobodyServes(left: gone)
    }
}
#endif
