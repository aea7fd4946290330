public import Configuration
import Foundation

/// The analytics service's configuration (keys under `analytics.`;
/// environment `FARELENS_ANALYTICS_…`). docs/analytics.md lists them.
public struct AnalyticsSettings: Sendable {
    /// `analytics.pseudonymKeys`: the keys user ids are pseudonymised with,
    /// as `VERSION:BASE64` separated by commas, e.g. `2:…,1:…`. The highest
    /// version is current (new rows); the others are still used to find a
    /// user's older rows (opt-out, delete). Versions are 1 or more (0 is the
    /// generated key's); each key is at least 32 bytes. Empty: see
    /// ``requireConfiguredKey``.
    public var pseudonymKeys: [PseudonymKey] = []
    /// `analytics.requirePseudonymKey`: refuse to start without
    /// `pseudonymKeys` (production). When false (the default) and no key is
    /// configured, a random key is generated once and kept in
    /// `analytics.sqlite` (version 0), and a warning is logged at every start.
    public var requireConfiguredKey = false
    /// `analytics.retentionIntervalSeconds`: how often raw events past the
    /// 90-day retention are purged (the first purge runs at start).
    public var retentionInterval: Duration = .seconds(3600)

    public init() {}

    /// Reads the keys from a reader scoped to `analytics`.
    ///
    /// - Throws: ``AnalyticsSettingsError`` naming the key at fault.
    public init(reader: ConfigReader) throws(AnalyticsSettingsError) {
        if let text = reader.string(forKey: "pseudonymKeys"), !text.trimmingCharacters(in: .whitespaces).isEmpty {
            pseudonymKeys = try Self.keys(text)
        }
        if let flag = reader.bool(forKey: "requirePseudonymKey") {
            requireConfiguredKey = flag
        } else if let text = reader.string(forKey: "requirePseudonymKey") {
            switch text.lowercased() {
            case "true", "1", "yes": requireConfiguredKey = true
            case "false", "0", "no": requireConfiguredKey = false
            default: throw AnalyticsSettingsError(key: "analytics.requirePseudonymKey", message: "'\(text)': must be true or false")
            }
        }
        let key = ConfigKey("retentionIntervalSeconds")
        if let seconds = reader.int(forKey: key) ?? reader.string(forKey: key).map({ Int($0) ?? -1 }) {
            guard seconds > 0 else {
                throw AnalyticsSettingsError(key: "analytics.retentionIntervalSeconds", message: "must be a positive whole number of seconds")
            }
            retentionInterval = .seconds(seconds)
        }
    }

    /// Parses `VERSION:BASE64[,VERSION:BASE64…]`; never echoes a key in an error.
    static func keys(_ text: String) throws(AnalyticsSettingsError) -> [PseudonymKey] {
        let name = "analytics.pseudonymKeys"
        var keys: [PseudonymKey] = []
        for (index, entry) in text.split(separator: ",").enumerated() {
            let parts = entry.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let version = Int(parts[0]) else {
                throw AnalyticsSettingsError(key: name, message: "entry \(index + 1) must be VERSION:BASE64, e.g. 2:<32+ bytes in base64>")
            }
            guard version >= 1, version <= 9999 else {
                throw AnalyticsSettingsError(key: name, message: "entry \(index + 1): version \(version) must be 1–9999 (0 is the generated key's)")
            }
            guard let bytes = Data(base64Encoded: String(parts[1])) else {
                throw AnalyticsSettingsError(key: name, message: "version \(version): the key is not valid base64")
            }
            guard bytes.count >= PseudonymKey.minimumBytes else {
                throw AnalyticsSettingsError(key: name, message: "version \(version): the key has \(bytes.count) bytes; at least \(PseudonymKey.minimumBytes) are needed")
            }
            guard !keys.contains(where: { $0.version == version }) else {
                throw AnalyticsSettingsError(key: name, message: "version \(version) is listed twice")
            }
            keys.append(PseudonymKey(version: version, secret: bytes))
        }
        return keys
    }
}

/// An analytics configuration value that cannot be used.
public struct AnalyticsSettingsError: Error, Sendable, CustomStringConvertible {
    /// The full key, e.g. `analytics.pseudonymKeys`.
    public let key: String
    public let message: String
    public var description: String { "configuration key \(key): \(message)" }
}
