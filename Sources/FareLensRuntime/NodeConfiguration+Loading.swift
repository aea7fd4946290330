import Configuration
public import FareLensServiceKit
import Foundation
import SystemPackage

extension NodeConfiguration {
    /// Builds the configuration from flags (highest precedence), the
    /// environment, and an optional JSON file.
    ///
    /// - Parameters:
    ///   - flags: values given on the command line, by configuration key
    ///     (e.g. `["dataDir": "/var/lib/farelens"]`).
    ///   - configFile: path of a JSON file; `FARELENS_CONFIG` is used when nil.
    ///   - environment: the environment to read (the process's by default).
    ///   - defaults: values below the file's in precedence, above the code's
    ///     defaults (the demo's settings, for example).
    ///   - knownKeys: every key the node reads; when given, each `FARELENS_…`
    ///     variable and each key of the file that is not one of them is kept
    ///     in ``unknownKeys`` (with `strictConfig`, refused).
    /// - Throws: ``ConfigurationError`` for an invalid value, an unreadable
    ///   file, or, with `strictConfig`, an unknown key.
    public static func load(
        flags: [String: String],
        configFile: String?,
        environment: [String: String]? = nil,
        defaults: [String: String] = [:],
        knownKeys: ConfigKeyCatalog? = nil
    ) async throws(ConfigurationError) -> NodeConfiguration {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in flags { values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false) }
        let env = environment.map { EnvironmentVariablesProvider(environmentVariables: $0) } ?? EnvironmentVariablesProvider()
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: values),
            KeyMappingProvider(upstream: env) { key in key.prepending(["farelens"]) },
        ]
        let file = configFile ?? ((try? env.environmentValue(forName: "FARELENS_CONFIG")) ?? nil)
        if let file {
            do {
                providers.append(try await FileProvider<JSONSnapshot>(filePath: FilePath(file)))
            } catch {
                throw .unreadable(file: file, reason: String(describing: error))
            }
        }
        if !defaults.isEmpty {
            var values: [AbsoluteConfigKey: ConfigValue] = [:]
            for (key, value) in defaults { values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false) }
            providers.append(InMemoryProvider(name: "defaults", values: values))
        }
        var configuration = try NodeConfiguration(reader: ConfigReader(providers: providers))
        if let knownKeys {
            var fileKeys: (path: String, object: [String: Any])?
            if let file { fileKeys = (file, try jsonObject(file)) }
            configuration.unknownKeys = knownKeys.unknownKeys(environment: environment ?? ProcessInfo.processInfo.environment, file: fileKeys)
            if configuration.strictConfig, !configuration.unknownKeys.isEmpty { throw .unknown(configuration.unknownKeys) }
        }
        return configuration
    }

    /// The file's top-level object, for its key names (the provider keeps them to itself).
    private static func jsonObject(_ file: String) throws(ConfigurationError) -> [String: Any] {
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any] else {
                throw ConfigurationError.unreadable(file: file, reason: "its top level is not a JSON object")
            }
            return object
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw .unreadable(file: file, reason: String(describing: error))
        }
    }
}
