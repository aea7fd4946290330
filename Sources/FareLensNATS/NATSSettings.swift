/// How a node reaches NATS when `bus.transport = nats` (docs/bus.md,
/// "Over NATS"; docs/operations.md lists the keys).
public struct NATSSettings: Sendable, Equatable {
    /// `nats.urls` / `FARELENS_NATS_URLS`: the servers, comma-separated in
    /// the environment (several for a cluster: the client fails over).
    public var urls: [String]
    /// `nats.namespace` / `FARELENS_NATS_NAMESPACE`: the first token of every
    /// subject and the JetStream stream's name, so several deployments can
    /// share one cluster.
    public var namespace: String
    /// `nats.user` and `nats.password`: user/password authentication.
    public var user: String?
    /// Never logged, never printed (``description`` hides it).
    public var password: String?
    /// `nats.credentialsFile`: a `.creds` file (JWT and NKey seed) instead of a password.
    public var credentialsFile: String?
    /// `nats.heartbeatMs`: how often the node announces itself to the
    /// registry; a node unheard for three periods is gone.
    public var heartbeat: Duration = .seconds(1)
    /// `nats.ackWaitMs`: how long JetStream waits for this node to settle a
    /// durable event before redelivering it.
    public var ackWait: Duration = .seconds(30)
    /// `nats.maxAckPending`: durable events handed to this node and not yet
    /// settled; JetStream hands out no more (the backpressure bound).
    public var maxAckPending: Int = 4096
    /// `nats.replicas`: copies of the durable stream a JetStream cluster
    /// keeps (1 on one server; 3 so the loss of one server loses nothing).
    public var replicas: Int = 1
    /// `nats.retentionHours`: how long a durable event is kept for a node
    /// that is away; after it the event is gone for that node (a warning
    /// says how many when it comes back).
    public var retention: Duration = .seconds(7 * 24 * 3600)
    /// How often a connection looks for durable publishes whose
    /// acknowledgement is overdue (given up on at the third look: 2–3 s
    /// with the default second; ``PendingPublishes``). Nil: never by itself
    /// (a test calls `tick()` to move that time). Not a configuration key.
    public var acknowledgementTick: Duration? = .seconds(1)

    /// Settings for `urls` under `namespace`.
    public init(urls: [String], namespace: String) {
        self.urls = urls
        self.namespace = namespace
    }

    /// Whether `name` can be a namespace: one NATS subject token and a
    /// JetStream stream name — letters, digits, `-` and `_`, at most 32.
    public static func isValidNamespace(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 32 && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// Whether `url` names a NATS server: `nats://`, `tls://` (or bare
    /// `host:port`) with a host.
    public static func isValidURL(_ url: String) -> Bool {
        var rest = Substring(url)
        for scheme in ["nats://", "tls://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains(" ") else { return false }
        guard let colon = rest.lastIndex(of: ":") else { return true }
        return colon > rest.startIndex && UInt16(rest[rest.index(after: colon)...]) != nil
    }

    /// Whether a build of this executable has the NATS transport (the
    /// `NATS` package trait).
    public static var isBuiltIn: Bool {
        #if NATS
        true
        #else
        false
        #endif
    }
}

extension NATSSettings: CustomStringConvertible {
    /// The settings as a log line: the password is never shown.
    public var description: String {
        var parts = ["urls=\(urls.joined(separator: ","))", "namespace=\(namespace)"]
        if let user { parts.append("user=\(user)") }
        if password != nil { parts.append("password=<hidden>") }
        if let credentialsFile { parts.append("credentialsFile=\(credentialsFile)") }
        return parts.joined(separator: " ")
    }
}
