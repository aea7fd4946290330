/// One configuration key: its dotted name (as the JSON file nests it), its
/// environment variable, the type of its value, its default and what it does.
///
/// Each settings type declares the keys it reads beside the code that reads
/// them (``NodeConfiguration/configKeys``, `SearchSettings.configKeys`, …);
/// the executable gathers them in one ``ConfigKeyCatalog``, which
/// `farelens config keys` lists and against which start-up checks every key
/// it is given (``ConfigKeyCatalog/unknownKeys(environment:file:)``).
public struct ConfigKeySpec: Sendable, Hashable {
    /// What a value must look like.
    public enum ValueType: String, Sendable, Hashable, CaseIterable {
        /// Text: a name, a path, a URL, `HOST:PORT`.
        case string
        /// A whole number.
        case integer
        /// A number that may have a fraction.
        case number
        /// `true` or `false`.
        case boolean
        /// Several values in one string, comma- (or, for secrets, space-) separated.
        case list
        /// Text that is never logged: credentials, signing secrets, keys.
        case secret
    }

    /// The dotted key, e.g. `alerts.webhook.initialBackoffSeconds`.
    public let key: String
    /// The type of its value.
    public let type: ValueType
    /// The default, as an operator would write it; nil when there is none
    /// (the feature is off, or the value is derived from another key).
    public let defaultValue: String?
    /// The `farelens serve` option that sets it too, e.g. `--data-dir`.
    public let flag: String?
    /// One line: what it does.
    public let help: String

    /// Declares a key.
    public init(_ key: String, _ type: ValueType, default defaultValue: String? = nil, flag: String? = nil, _ help: String) {
        self.key = key
        self.type = type
        self.defaultValue = defaultValue
        self.flag = flag
        self.help = help
    }

    /// `FARELENS_` and the key in upper snake case, e.g.
    /// `FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS`.
    public var environmentName: String { Self.environmentName(forKey: key) }

    /// The environment variable swift-configuration's
    /// `EnvironmentVariablesProvider` looks a key up under (with the node's
    /// `farelens` prefix): a word boundary where a lowercase letter meets an
    /// uppercase one, everything upper case, anything but letters and digits
    /// an underscore, the components joined by underscores.
    public static func environmentName(forKey key: String) -> String {
        let components = ["farelens"] + key.split(separator: ".").map(String.init)
        return components.map { component in
            var snake = ""
            var previous: Character?
            for character in component {
                if let previous, previous.isLowercase, character.isUppercase { snake.append("_") }
                snake += character.isLetter || character.isNumber ? character.uppercased() : "_"
                previous = character
            }
            return snake
        }.joined(separator: "_")
    }
}

/// Every configuration key a node knows, gathered from the settings types
/// that read them: what `farelens config keys` lists, and what start-up
/// checks the environment's `FARELENS_…` variables and the config file's
/// keys against.
public struct ConfigKeyCatalog: Sendable {
    /// Every key, in the order declared.
    public let specs: [ConfigKeySpec]
    private let byKey: [String: ConfigKeySpec]
    private let byEnvironmentName: [String: ConfigKeySpec]

    /// A catalog of `specs`; a key declared twice is a programming error.
    public init(_ specs: [ConfigKeySpec]) {
        self.specs = specs
        byKey = Dictionary(specs.map { ($0.key, $0) }) { first, _ in preconditionFailure("configuration key \(first.key) is declared twice") }
        byEnvironmentName = Dictionary(specs.map { ($0.environmentName, $0) }) { first, _ in
            preconditionFailure("two configuration keys share the environment variable \(first.environmentName)")
        }
    }

    /// The key named `key` (dotted, as in the file), if known.
    public func spec(forKey key: String) -> ConfigKeySpec? { byKey[key] }

    /// The key whose environment variable is `name`, if any.
    public func spec(forEnvironmentName name: String) -> ConfigKeySpec? { byEnvironmentName[name] }

    /// The prefix of every configuration key's environment variable.
    public static let environmentPrefix = "FARELENS_"

    /// Variables that start with `FARELENS_` but are not configuration keys,
    /// each with what reads it: start-up never reports them (docs/operations.md,
    /// "Unknown keys"). A new one belongs here, or it is reported as unknown.
    public static let otherEnvironmentVariables: [(name: String, use: String)] = [
        ("FARELENS_CONFIG", "the JSON config file of farelens serve when --config is not given"),
        ("FARELENS_SOCKET", "farelensctl's socket when --socket is not given"),
        ("FARELENS_WIRE_TIMELINE", "a directory where each process records a request's path (a diagnostic)"),
        ("FARELENS_PYTHON", "the python the tests run the gateway's tools with (ops/test.sh)"),
        ("FARELENS_TEST_LIMIT_SECONDS", "ops/test.sh's time limit for the test suites"),
        ("FARELENS_TEST_WIDTH", "how many tests ops/test.sh runs at once (Swift Testing's parallelization width)"),
        ("FARELENS_PROTOC_SCRATCH", "ops/gen-protos.sh's scratch directory"),
        ("FARELENS_BENCH_ONLY", "which part of a benchmark runs"),
        ("FARELENS_BENCH_GATHER_MS", "the alerts benchmark's gathering window"),
        ("FARELENS_NATS_SERVER", "the wire benchmarks' nats-server"),
        ("FARELENS_NATS_REFERENCE", "the wire benchmarks' NATS reference client"),
        ("FARELENS_NATS_ADMIN_PASSWORD", "the NATS servers' password of the user admin (ops/nats/permissions.conf; a node sets nats.password)"),
        ("FARELENS_NATS_NODE_PASSWORD", "the NATS servers' password of the user node (ops/nats/permissions.conf; a node sets nats.password)"),
    ]
}
