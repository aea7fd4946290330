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
        ]
    }()
}
