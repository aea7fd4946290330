import Configuration
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import Foundation
import Testing

/// The configuration keys a node knows (issue #58, item 5: a misspelled key
/// was silently ignored): the nearest key to a misspelling, the start-up
/// warnings for unknown variables and file keys, and `strictConfig`.
@Suite("Configuration keys: the catalog, unknown keys and their suggestions")
struct ConfigKeyCatalogTests {
    static let misspelledVariable = "FARELENS_ALERTS_WEBHOOK_INITIALBACKOFFSECONDS"

    @Test("a misspelled key, as a variable or as a file key, is matched to the key it misspells")
    func suggestion() throws {
        let catalog = ConfigKeyCatalog.farelens
        for (given, meant) in [
            (Self.misspelledVariable, "alerts.webhook.initialBackoffSeconds"),
            ("alerts.webhook.initialBackofSeconds", "alerts.webhook.initialBackoffSeconds"),
            ("FARELENS_SEARCH_SWEEP_INTERVAL_SECOND", "search.sweep.intervalSeconds"),
            ("gateway.userPerSecnd", "gateway.userPerSecond"),
            ("FARELENS_LOGLEVEL", "logLevel"),
        ] {
            let nearest = catalog.nearest(to: given)
            #expect(nearest.spec?.key == meant, "\(given)")
            #expect(nearest.isLikelyMisspelling, "\(given)")
        }
        #expect(!catalog.nearest(to: "FARELENS_FOO").isLikelyMisspelling, "a name near no key is not called a misspelling")
    }

    @Test("an unknown variable and an unknown config file key are each reported naming the nearest key; comments (_…) and other FARELENS_ variables are not")
    func warnings() async throws {
        let file = try NodeConfigurationTests.jsonFile(#"""
            {"_comment": "x", "alerts": {"webhook": {"initialBackofSeconds": 3}, "_optional": {"anything": 1}}, "logLevel": "info"}
            """#)
        let environment = [Self.misspelledVariable: "abc", "FARELENS_SOCKET": "/tmp/x.sock", "FARELENS_LOG_LEVEL": "info", "HOME": "/root"]
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: file, environment: environment, knownKeys: .farelens)
        #expect(configuration.unknownKeys.map(\.description) == [
            "FARELENS_ALERTS_WEBHOOK_INITIALBACKOFFSECONDS is not a configuration key; did you mean FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS (alerts.webhook.initialBackoffSeconds)?",
            "alerts.webhook.initialBackofSeconds in \(file) is not a configuration key; did you mean alerts.webhook.initialBackoffSeconds (FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS)?",
        ])
    }

    @Test("with strictConfig an unknown key stops loading, naming the key and the suggestion on one line")
    func strict() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await NodeConfiguration.load(flags: ["strictConfig": "true"], configFile: nil, environment: [Self.misspelledVariable: "abc"], knownKeys: .farelens)
        }
        #expect(error?.key == Self.misspelledVariable)
        #expect(error?.message.contains("did you mean FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS (alerts.webhook.initialBackoffSeconds)?") == true)
        #expect(error?.message.contains("\n") == false)
        let fromEnvironment = ["FARELENS_STRICT_CONFIG": "true", "FARELENS_NODE_NAM": "x"]
        await #expect(throws: ConfigurationError.self) { try await NodeConfiguration.load(flags: [:], configFile: nil, environment: fromEnvironment, knownKeys: .farelens) }
    }

    @Test("the example config file (ops/farelens.example.json) has no unknown key")
    func exampleIsKnown() async throws {
        let configuration = try await NodeConfiguration.load(flags: [:], configFile: ConfigExampleTests.example.path, environment: [:], knownKeys: .farelens)
        #expect(configuration.unknownKeys.isEmpty, "\(configuration.unknownKeys)")
    }

    @Test("each key's listed environment variable is the one the node reads it from")
    func environmentNames() throws {
        for spec in ConfigKeyCatalog.farelens.specs {
            let environment = EnvironmentVariablesProvider(environmentVariables: [spec.environmentName: "value"])
            let reader = ConfigReader(provider: KeyMappingProvider(upstream: environment) { $0.prepending(["farelens"]) })
            #expect(reader.string(forKey: ConfigKey(spec.key)) == "value", "\(spec.key) is not read from \(spec.environmentName)")
        }
    }

    @Test("the catalog is docs/operations.md's tables: the same keys with the same environment variables")
    func documented() throws {
        let docs = try String(contentsOf: SystemdUnitTests.repository.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        var documented: [String: String] = [:]
        for line in docs.split(separator: "\n") {
            guard let match = line.firstMatch(of: /^\| `([a-zA-Z][a-zA-Z0-9.]*)` \| `(FARELENS_[A-Z0-9_]+)`/) else { continue }
            documented[String(match.1)] = String(match.2)
        }
        let catalog = Dictionary(uniqueKeysWithValues: ConfigKeyCatalog.farelens.specs.map { ($0.key, $0.environmentName) })
        #expect(Set(catalog.keys).subtracting(documented.keys).isEmpty, "not in docs/operations.md: \(Set(catalog.keys).subtracting(documented.keys).sorted())")
        #expect(Set(documented.keys).subtracting(catalog.keys).isEmpty, "documented, not declared: \(Set(documented.keys).subtracting(catalog.keys).sorted())")
        for (key, name) in documented where catalog[key] != nil {
            #expect(catalog[key] == name, "\(key): docs say \(name)")
        }
    }

    @Test("every FARELENS_ variable the code, scripts and compose files use is a configuration key or on the allow-list")
    func allowList() throws {
        let root = SystemdUnitTests.repository
        let known = Set(ConfigKeyCatalog.farelens.specs.map(\.environmentName) + ConfigKeyCatalog.otherEnvironmentVariables.map(\.name))
        var unlisted: Set<String> = []
        for directory in ["Sources", "ops", "docker", "Benchmarks/Sources", ".ci"] {
            guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(directory).path) else { continue }
            for case let file as String in files where ["swift", "sh", "yaml", "yml", "service", "json"].contains((file as NSString).pathExtension) || !file.contains(".") {
                guard let text = try? String(contentsOf: root.appendingPathComponent(directory).appendingPathComponent(file), encoding: .utf8) else { continue }
                for match in text.matches(of: /FARELENS_[A-Z0-9_]+/) where !match.output.hasSuffix("_") && !known.contains(String(match.output)) {
                    unlisted.insert("\(match.output) (\(directory)/\(file))")
                }
            }
        }
        #expect(unlisted.isEmpty, "used but neither a key nor in ConfigKeyCatalog.otherEnvironmentVariables: \(unlisted.sorted())")
    }
}
