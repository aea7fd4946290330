public import FareLensServiceKit

extension AnalyticsSettings {
    /// The keys ``init(reader:)`` reads (`analytics.*`), for
    /// ``ConfigKeyCatalog`` (`farelens config keys`; docs/operations.md).
    public static let configKeys: [ConfigKeySpec] = {
        let defaults = AnalyticsSettings()
        return [
            ConfigKeySpec("analytics.pseudonymKeys", .secret, "VERSION:BASE64,… keys user ids are pseudonymised with; absent: a generated key"),
            ConfigKeySpec("analytics.requirePseudonymKey", .boolean, default: "\(defaults.requireConfiguredKey)", "refuse to start without configured pseudonym keys"),
            ConfigKeySpec("analytics.retentionIntervalSeconds", .integer, default: "\(defaults.retentionInterval.components.seconds)", "how often raw events past retention are purged"),
        ]
    }()
}
