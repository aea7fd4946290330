import Configuration
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
    public static func load(
        flags: [String: String],
        configFile: String?,
        environment: [String: String]? = nil,
        defaults: [String: String] = [:]
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
        return try NodeConfiguration(reader: ConfigReader(providers: providers))
    }
}
