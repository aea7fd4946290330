import Configuration
import Foundation

/// Where a live provider is reached and how long one call may take.
public struct LiveProviderSettings: Sendable, Equatable {
    /// Scheme, host and optional port, no trailing path, e.g.
    /// "https://test.api.amadeus.com" (`search.<provider>.baseUrl`).
    public var baseURL: String
    /// Longest wait for one HTTP exchange, body included (`search.<provider>.timeoutMs`).
    public var timeout: Duration

    /// Used when `search.<provider>.timeoutMs` is absent.
    public static let defaultTimeout: Duration = .seconds(10)

    /// Creates settings; a trailing "/" on `baseURL` is dropped.
    public init(baseURL: String, timeout: Duration = LiveProviderSettings.defaultTimeout) {
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.timeout = timeout
    }
}

/// One provider's section of the configuration (`search.<provider>.*`),
/// read through a reader already scoped to "search".
///
/// Secrets are read with `isSecret: true`, so swift-configuration's access
/// reporting redacts them too.
struct ProviderConfigSection {
    let reader: ConfigReader
    /// "amadeus" or "travelpayouts": the provider name and the key prefix.
    let provider: String

    /// The full key as operators write it, e.g. "search.amadeus.clientId".
    func fullKey(_ key: String) -> String { "search.\(provider).\(key)" }

    /// A non-empty trimmed string, or nil when absent or blank.
    func string(_ key: String, secret: Bool = false) -> String? {
        let value = reader.string(forKey: ConfigKey("\(provider).\(key)"), isSecret: secret)?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return value?.isEmpty == false ? value : nil
    }

    /// Whether any of `keys` has a value.
    func hasAny(of keys: [String], secret: Set<String>) -> Bool {
        keys.contains { string($0, secret: secret.contains($0)) != nil }
    }

    /// The value of `key`, or ``ProviderError/notConfigured(_:missing:)`` naming it.
    func require(_ key: String, secret: Bool = false) throws(ProviderError) -> String {
        guard let value = string(key, secret: secret) else { throw .notConfigured(provider, missing: fullKey(key)) }
        return value
    }

    /// `baseUrl` and `timeoutMs` (default ``LiveProviderSettings/defaultTimeout``).
    func endpoint() throws(ProviderError) -> LiveProviderSettings {
        let baseURL = try require("baseUrl")
        guard baseURL.hasPrefix("https://") || baseURL.hasPrefix("http://") else {
            throw .invalidConfiguration(provider, key: fullKey("baseUrl"), expected: "an http:// or https:// URL")
        }
        return LiveProviderSettings(baseURL: baseURL, timeout: try timeout())
    }

    private func timeout() throws(ProviderError) -> Duration {
        let key = ConfigKey("\(provider).timeoutMs")
        // A JSON file gives numbers; the environment and flags give strings.
        let number = reader.int(forKey: key) ?? reader.string(forKey: key).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let number, number > 0 { return .milliseconds(number) }
        guard number != nil || reader.string(forKey: key) != nil else { return LiveProviderSettings.defaultTimeout }
        throw .invalidConfiguration(provider, key: fullKey("timeoutMs"), expected: "a positive whole number of milliseconds")
    }
}
