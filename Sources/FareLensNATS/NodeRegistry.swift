public import FareLensBus

/// What a node over NATS knows of the others, from their heartbeats: the
/// addresses each hosts and the topics each wants, and when it was last
/// heard. A node unheard for ``timeout`` is gone: requests to addresses
/// only it hosted fail at once instead of waiting for their deadline.
///
/// A value type with the time passed in, so its rules are tested without a
/// server or a clock.
public struct NodeRegistry: Sendable {
    /// One other node as its last heartbeat described it.
    public struct Entry: Sendable, Equatable {
        /// The addresses it hosts.
        public var services: Set<String>
        /// The topics it wants.
        public var topics: Set<String>
        /// When its last heartbeat arrived.
        public var lastHeard: BusInstant
    }

    /// How long a node may stay silent before it is gone (three heartbeats).
    public let timeout: Duration
    /// The other nodes, by name.
    public private(set) var nodes: [String: Entry] = [:]

    /// A registry forgetting nodes silent for `timeout`.
    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Records a heartbeat. Returns true when the node is new (or its
    /// services changed), so the caller can say so.
    @discardableResult
    public mutating func heard(_ node: String, services: Set<String>, topics: Set<String>, at now: BusInstant) -> Bool {
        let previous = nodes[node]
        nodes[node] = Entry(services: services, topics: topics, lastHeard: now)
        return previous?.services != services
    }

    /// Forgets `node` (it said goodbye). Returns whether it was known.
    @discardableResult
    public mutating func left(_ node: String) -> Bool {
        nodes.removeValue(forKey: node) != nil
    }

    /// Forgets every node unheard since `now - timeout`; returns their names.
    public mutating func expire(at now: BusInstant) -> [String] {
        let limit = now.advanced(by: .zero - timeout)
        let gone = nodes.filter { $0.value.lastHeard < limit }.map(\.key).sorted()
        for node in gone { nodes.removeValue(forKey: node) }
        return gone
    }

    /// Whether some known node hosts `address`.
    public func hosts(_ address: String) -> Bool {
        nodes.values.contains { $0.services.contains(address) }
    }

    /// Whether some known node wants events on `topic` (or every topic).
    public func wants(_ topic: String) -> Bool {
        nodes.values.contains { $0.topics.contains(topic) || $0.topics.contains("*") }
    }

    /// The nodes hosting `address`, by name (two or more share its requests).
    public func hosting(_ address: String) -> [String] {
        nodes.filter { $0.value.services.contains(address) }.map(\.key).sorted()
    }
}
