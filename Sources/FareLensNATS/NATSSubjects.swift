/// The subjects a namespace uses (docs/bus.md, "Over NATS"):
///
/// | what | subject |
/// |---|---|
/// | a request for an address | `<ns>.req.<address>`, queue group `<address>` |
/// | its reply | `<ns>.reply.<node>.<id>` |
/// | a non-durable event | `<ns>.evt.<topic>` |
/// | a durable event | `<ns>.dur.<topic>`, kept by the stream `<ns>_durable` |
/// | a node's heartbeat | `<ns>.node.<node>` |
public struct NATSSubjects: Sendable, Equatable {
    /// The namespace, validated (``NATSSettings/isValidNamespace(_:)``).
    public let namespace: String

    /// Subjects under `namespace`.
    public init(namespace: String) {
        self.namespace = namespace
    }

    /// Where requests for `address` go.
    public func request(_ address: String) -> String { "\(namespace).req.\(address)" }
    /// The address a request subject is for; nil for any other subject.
    public func address(ofRequestSubject subject: String) -> String? {
        let prefix = "\(namespace).req."
        guard subject.hasPrefix(prefix), subject.count > prefix.count else { return nil }
        return String(subject.dropFirst(prefix.count))
    }
    /// Where the replies to `node`'s requests come back (a wildcard of one token: the request's id).
    public func replies(to node: String) -> String { "\(namespace).reply.\(Self.token(node)).*" }
    /// The reply subject of request `id` from `node`.
    public func reply(to node: String, id: UInt64) -> String { "\(namespace).reply.\(Self.token(node)).\(id)" }
    /// Where non-durable events on `topic` go (`*` for every topic).
    public func event(_ topic: String) -> String { topic == "*" ? "\(namespace).evt.>" : "\(namespace).evt.\(topic)" }
    /// Where durable events on `topic` go.
    public func durableEvent(_ topic: String) -> String { "\(namespace).dur.\(topic)" }
    /// Every durable event of the namespace (the stream's subjects, and each node's consumer's filter).
    public var durableEvents: String { "\(namespace).dur.>" }
    /// The JetStream stream holding the namespace's durable events.
    public var stream: String { "\(namespace)_durable" }
    /// A node's heartbeat subject.
    public func heartbeat(of node: String) -> String { "\(namespace).node.\(Self.token(node))" }
    /// Every node's heartbeat.
    public var heartbeats: String { "\(namespace).node.*" }
    /// The durable consumer a node reads its durable events through.
    public func consumer(of node: String) -> String { Self.token(node) }

    /// `name` as one subject token or consumer name: `.`, `*`, `>` and
    /// white space become `_`.
    public static func token(_ name: String) -> String {
        String(name.map { ".*> \t".contains($0) ? "_" : $0 })
    }
}
