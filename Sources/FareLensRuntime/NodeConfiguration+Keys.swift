public import FareLensServiceKit
extension NodeConfiguration {
    /// The keys ``init(reader:)`` reads, for ``ConfigKeyCatalog``
    /// (`farelens config keys`; docs/operations.md, "Configuration").
    public static let configKeys: [ConfigKeySpec] = {
        let defaults = NodeConfiguration()
        return [
            ConfigKeySpec("services", .list, default: defaults.services, flag: "--services", "all, or a comma-separated list of the services this node hosts"),
            ConfigKeySpec("dataDir", .string, default: defaults.dataDirectory, flag: "--data-dir", "directory of the per-service SQLite databases"),
            ConfigKeySpec("logLevel", .string, default: defaults.logLevel.rawValue, flag: "--log-level", "trace, debug, info, notice, warning, error or critical"),
            ConfigKeySpec("nodeName", .string, default: defaults.nodeName, flag: "--node-name", "this process's name in the mesh (a spoke's: spoke-<services>)"),
            ConfigKeySpec("strictConfig", .boolean, default: "\(defaults.strictConfig)", flag: "--strict-config", "an unknown key in the environment or the config file stops start-up instead of a warning"),
            ConfigKeySpec("bus.deadlineMs", .integer, default: "\(defaults.defaultDeadline.components.seconds * 1000)", "default request deadline, in milliseconds"),
            ConfigKeySpec("bus.maxInFlight", .integer, default: "\(defaults.maxInFlightPerService)", "in-flight requests per service before overloaded"),
            ConfigKeySpec("bus.subscriberBuffer", .integer, default: "\(defaults.subscriberBufferSize)", "events buffered per subscriber"),
            ConfigKeySpec("shutdown.graceMs", .integer, default: "\(defaults.shutdownGrace.components.seconds * 1000)", "longest graceful drain, in milliseconds"),
            ConfigKeySpec("bridge.socket", .string, default: "<dataDir>/farelens.sock", "where a listening node binds its Unix socket"),
            ConfigKeySpec("listen", .string, flag: "--listen", "listen on this socket (this node is the hub)"),
            ConfigKeySpec("connect", .string, flag: "--connect", "join the hub listening on this socket instead of listening"),
            ConfigKeySpec("bridge.socketGroup", .string, "group that may connect (socket mode 0660)"),
            ConfigKeySpec("bridge.allowedUids", .list, default: "own uid", "comma-separated peer uids allowed to connect"),
            ConfigKeySpec("bridge.adminUids", .list, default: "own uid,0", "uids whose admin clients may use admin-only addresses"),
            ConfigKeySpec("bridge.maxFrameBytes", .integer, default: "\(defaults.maxFrameBytes)", "largest accepted frame"),
            ConfigKeySpec("bridge.maxInflatedBytes", .integer, default: "\(defaults.maxInflatedBytes)", "largest size a compressed payload may inflate to"),
            ConfigKeySpec("bridge.compressionThreshold", .integer, default: "\(defaults.compressionThreshold)", "payloads at least this long are compressed when it helps"),
            ConfigKeySpec("bridge.maxUnwrittenBytes", .integer, default: "\(defaults.maxUnwrittenBytes)", "bytes waiting for a peer that does not read before it is closed as slow-consumer"),
            ConfigKeySpec("bridge.durableBacklog", .integer, default: "\(defaults.durableBacklog)", "durable events kept per peer until it acknowledges them"),
            ConfigKeySpec("metrics.listen", .string, flag: "--metrics-listen", "HOST:PORT where GET /metrics serves Prometheus text; off when unset"),
            ConfigKeySpec("bus.transport", .string, default: defaults.transport.rawValue, "socket (one machine) or nats (several: needs a build with --traits NATS)"),
            ConfigKeySpec("nats.urls", .list, "the NATS servers, comma-separated (nats://host:4222); required with bus.transport=nats"),
            ConfigKeySpec("nats.namespace", .string, default: "farelens", "first token of every subject and the stream's name: letters, digits, - and _"),
            ConfigKeySpec("nats.user", .string, "NATS user name (with nats.password)"),
            ConfigKeySpec("nats.password", .secret, "NATS password; never logged"),
            ConfigKeySpec("nats.credentialsFile", .string, "a NATS .creds file (JWT and NKey seed) instead of a password"),
            ConfigKeySpec("nats.heartbeatMs", .integer, default: "1000", "how often a node announces itself; one unheard for three periods is gone"),
            ConfigKeySpec("nats.ackWaitMs", .integer, default: "30000", "how long JetStream waits for a durable event to be settled before handing it over again"),
            ConfigKeySpec("nats.maxAckPending", .integer, default: "4096", "durable events handed to a node and not yet settled (the backpressure bound)"),
            ConfigKeySpec("nats.replicas", .integer, default: "1", "copies of the durable stream a JetStream cluster keeps (3 survives the loss of a server)"),
            ConfigKeySpec("nats.retentionHours", .integer, default: "168", "how long a durable event is kept for a node that is away"),
        ]
    }()
}
