public import Configuration
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

    /// The defaults.
    public init() {}

    /// Reads every key from `reader`, keeping the default where a key is absent.
    ///
    /// - Throws: ``ConfigurationError`` naming the key whose value is invalid.
    public init(reader: ConfigReader) throws(ConfigurationError) {
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
        guard !nodeName.isEmpty else { throw .invalid(key: "nodeName", value: nodeName, expected: "a non-empty name") }
    }

    private static func positive(_ reader: ConfigReader, _ key: String, _ fallback: Int) throws(ConfigurationError) -> Int {
        // A JSON file gives numbers; the environment and flags give strings.
        let number = reader.int(forKey: ConfigKey(key)) ?? reader.string(forKey: ConfigKey(key)).flatMap { Int($0) }
        if let number, number > 0 { return number }
        let given = number.map(String.init) ?? reader.string(forKey: ConfigKey(key))
        guard let given else { return fallback }
        throw .invalid(key: key, value: given, expected: "a positive whole number")
    }
}

/// A configuration value that cannot be used, naming its key.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The configuration key at fault, e.g. `bus.deadlineMs`.
    public let key: String
    /// A one-line reason.
    public let message: String

    public static func invalid(key: String, value: String, expected: String) -> ConfigurationError {
        ConfigurationError(key: key, message: "invalid value '\(value)' for '\(key)': expected \(expected)")
    }
    public static func unreadable(file: String, reason: String) -> ConfigurationError {
        ConfigurationError(key: "config", message: "cannot read config file '\(file)': \(reason)")
    }
    public var description: String { message }
}
