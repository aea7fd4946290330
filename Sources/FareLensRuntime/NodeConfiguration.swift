public import Configuration
import FareLensBus
public import FareLensNATS
public import FareLensServiceKit
import Foundation
public import Logging

/// Everything a node reads at start-up. Each value comes, in order of
/// precedence, from a command-line flag, an environment variable
/// (`FARELENS_` + the key in upper snake case), the JSON config file, or the
/// default below. `docs/operations.md` lists every key.
public struct NodeConfiguration: Sendable {
    /// `dataDir` / `FARELENS_DATA_DIR` / `--data-dir`: one SQLite file per service lives here.
    public var dataDirectory: String = "./data"
    /// `logLevel` / `FARELENS_LOG_LEVEL` / `--log-level`.
    public var logLevel: Logger.Level = .info
    /// `nodeName` / `FARELENS_NODE_NAME`: this process's name in the mesh.
    public var nodeName: String = "farelens"
    /// `services` / `FARELENS_SERVICES` / `--services`: which services this node hosts.
    public var services: String = "all"
    /// `bus.deadlineMs` / `FARELENS_BUS_DEADLINE_MS`: default request deadline.
    public var defaultDeadline: Duration = .seconds(5)
    /// `bus.maxInFlight` / `FARELENS_BUS_MAX_IN_FLIGHT`: in-flight bound per service.
    public var maxInFlightPerService: Int = 1024
    /// `bus.subscriberBuffer` / `FARELENS_BUS_SUBSCRIBER_BUFFER`: events buffered per subscriber.
    public var subscriberBufferSize: Int = 4096
    /// `shutdown.graceMs` / `FARELENS_SHUTDOWN_GRACE_MS`: how long a graceful
    /// shutdown may drain before the node cancels what is left.
    public var shutdownGrace: Duration = .seconds(10)

    /// `bridge.socket` / `FARELENS_BRIDGE_SOCKET`: where a listening node
    /// binds its Unix socket; `<dataDir>/farelens.sock` when unset.
    public var socketPath: String?
    /// `listen` / `--listen PATH`: listen on this socket (overrides `bridge.socket`).
    public var listenPath: String?
    /// `connect` / `--connect PATH`: join the hub listening there instead of listening.
    public var connectPath: String?
    /// `bridge.socketGroup`: group allowed to connect (socket mode 0660 instead of 0600).
    public var socketGroup: String?
    /// `bridge.allowedUids`: comma-separated peer uids allowed to connect (default: own uid).
    public var allowedUIDs: Set<UInt32>?
    /// `bridge.adminUids`: comma-separated uids whose admin clients may use admin addresses (default: own uid and root).
    public var adminUIDs: Set<UInt32>?
    /// `bridge.maxFrameBytes`: largest accepted frame.
    public var maxFrameBytes: Int = 4 << 20
    /// `bridge.maxInflatedBytes`: largest size a compressed payload may inflate to.
    public var maxInflatedBytes: Int = 16 << 20
    /// `bridge.compressionThreshold`: payloads at least this long are compressed when it helps.
    public var compressionThreshold: Int = 1024
    /// `bridge.maxUnwrittenBytes`: bytes that may wait for a peer that is not
    /// reading before its connection is closed as `slow-consumer`.
    public var maxUnwrittenBytes: Int = 64 << 20
    /// `bridge.durableBacklog`: durable events kept per peer awaiting its
    /// acknowledgement (on disk) before a durable publish fails with `overloaded`.
    public var durableBacklog: Int = 100_000
    /// `metrics.listen` / `FARELENS_METRICS_LISTEN` / `--metrics-listen HOST:PORT`:
    /// serve `GET /metrics` (Prometheus text) over HTTP there; off when unset.
    public var metricsListen: (host: String, port: Int)?
    /// `bus.transport` / `FARELENS_BUS_TRANSPORT`: the Unix-socket bridge
    /// (one machine) or NATS (several; docs/bus.md, "Over NATS").
    public var transport: BusTransportChoice = .socket
    /// The `nats.*` keys, when `bus.transport = nats`.
    public var nats: NATSSettings?
    /// `strictConfig` / `FARELENS_STRICT_CONFIG` / `--strict-config`: a key
    /// the node does not know (``unknownKeys``) stops start-up instead of
    /// being a warning.
    public var strictConfig = false
    /// The `FARELENS_…` variables and config file keys that are not
    /// configuration keys, found by ``load(flags:configFile:environment:defaults:knownKeys:)``
    /// when given the catalog: `farelens serve` logs each as a warning.
    public var unknownKeys: [UnknownConfigKey] = []

    /// Every configuration value, for the keys services read themselves
    /// (e.g. `search.providers`); services see their own section
    /// (``ServiceContext/configuration``). Empty for the defaults.
    public var reader: ConfigReader = ConfigReader(provider: InMemoryProvider(values: [:]))

    /// The defaults.
    public init() {}

    /// Whether this node joins a hub instead of listening.
    public var isSpoke: Bool { connectPath != nil }

    /// Where the bridge journals its durable outboxes: `<dataDir>/bridge-outbox.sqlite`.
    public var outboxJournalPath: String {
        (dataDirectory.hasSuffix("/") ? dataDirectory : dataDirectory + "/") + "bridge-outbox.sqlite"
    }

    /// The socket this node listens on or connects to.
    public var effectiveSocketPath: String {
        connectPath ?? listenPath ?? socketPath ?? (dataDirectory.hasSuffix("/") ? dataDirectory : dataDirectory + "/") + "farelens.sock"
    }

    /// Reads every key from `reader`, keeping the default where a key is absent.
    ///
    /// - Throws: ``ConfigurationError`` naming the key whose value is invalid.
    public init(reader: ConfigReader) throws(ConfigurationError) {
        self.reader = reader
        dataDirectory = reader.string(forKey: "dataDir", default: dataDirectory)
        nodeName = reader.string(forKey: "nodeName", default: nodeName)
        services = reader.string(forKey: "services", default: services)
        let level = reader.string(forKey: "logLevel", default: logLevel.rawValue)
        guard let parsedLevel = Logger.Level(rawValue: level.lowercased()) else {
            throw .invalid(key: "logLevel", value: level, expected: "one of trace, debug, info, notice, warning, error, critical")
        }
        logLevel = parsedLevel
        defaultDeadline = .milliseconds(try Self.positive(reader, "bus.deadlineMs", 5000))
        maxInFlightPerService = try Self.positive(reader, "bus.maxInFlight", maxInFlightPerService)
        subscriberBufferSize = try Self.positive(reader, "bus.subscriberBuffer", subscriberBufferSize)
        shutdownGrace = .milliseconds(try Self.positive(reader, "shutdown.graceMs", 10_000))
        socketPath = reader.string(forKey: "bridge.socket")
        listenPath = reader.string(forKey: "listen")
        connectPath = reader.string(forKey: "connect")
        if listenPath != nil, connectPath != nil {
            throw .invalid(key: "connect", value: connectPath!, expected: "either --listen or --connect, not both")
        }
        socketGroup = reader.string(forKey: "bridge.socketGroup")
        allowedUIDs = try Self.uids(reader, "bridge.allowedUids")
        adminUIDs = try Self.uids(reader, "bridge.adminUids")
        maxFrameBytes = try Self.positive(reader, "bridge.maxFrameBytes", maxFrameBytes)
        maxInflatedBytes = try Self.positive(reader, "bridge.maxInflatedBytes", maxInflatedBytes)
        compressionThreshold = try Self.positive(reader, "bridge.compressionThreshold", compressionThreshold)
        maxUnwrittenBytes = try Self.positive(reader, "bridge.maxUnwrittenBytes", maxUnwrittenBytes)
        durableBacklog = try Self.positive(reader, "bridge.durableBacklog", durableBacklog)
        if let listen = reader.string(forKey: "metrics.listen") {
            guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port), colon > listen.startIndex else {
                throw .invalid(key: "metrics.listen", value: listen, expected: "HOST:PORT, e.g. 127.0.0.1:9464")
            }
            metricsListen = (String(listen[..<colon]), port)
        }
        strictConfig = try Self.boolean(reader, "strictConfig") ?? strictConfig
        (transport, nats) = try Self.transport(reader)
        // A receiver recognises a redelivery only while its id is in the
        // window; every event a backlog can redeliver must fit in it.
        let window = BusConfiguration().redeliveryWindow
        guard durableBacklog <= window else {
            throw .invalid(key: "bridge.durableBacklog", value: "\(durableBacklog)", expected: "at most \(window), the ids a receiving bus remembers per publisher to recognise a redelivery")
        }
        // A spoke's default name is derived from its services, so a restart
        // rejoins under the same name and gets its waiting durable events.
        if connectPath != nil, reader.string(forKey: "nodeName") == nil {
            nodeName = "spoke-" + services.replacingOccurrences(of: ",", with: "+")
        }
        guard !nodeName.isEmpty else { throw .invalid(key: "nodeName", value: nodeName, expected: "a non-empty name") }
    }

    private static func uids(_ reader: ConfigReader, _ key: String) throws(ConfigurationError) -> Set<UInt32>? {
        guard let text = reader.string(forKey: ConfigKey(key)) else { return nil }
        var result: Set<UInt32> = []
        for part in text.split(separator: ",") {
            guard let uid = UInt32(part.trimmingCharacters(in: .whitespaces)) else {
                throw .invalid(key: key, value: text, expected: "comma-separated numeric uids, e.g. 1000,0")
            }
            result.insert(uid)
        }
        return result
    }

    static func boolean(_ reader: ConfigReader, _ key: String) throws(ConfigurationError) -> Bool? {
        // A JSON file gives a boolean; the environment and flags give strings.
        if let flag = reader.bool(forKey: ConfigKey(key)) { return flag }
        guard let text = reader.string(forKey: ConfigKey(key)) else { return nil }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw .invalid(key: key, value: text, expected: "true or false")
        }
    }

    static func positive(_ reader: ConfigReader, _ key: String, _ fallback: Int) throws(ConfigurationError) -> Int {
        // A JSON file gives numbers; the environment and flags give strings.
        let number = reader.int(forKey: ConfigKey(key)) ?? reader.string(forKey: ConfigKey(key)).flatMap { Int($0) }
        if let number, number > 0 { return number }
        let given = number.map(String.init) ?? reader.string(forKey: ConfigKey(key))
        guard let given else { return fallback }
        throw .invalid(key: key, value: given, expected: "a positive whole number")
    }
}
