public import FareLensServiceKit

extension AlertDeliverySettings {
    /// The keys ``init(reader:)`` reads (`alerts.*`), for
    /// ``ConfigKeyCatalog`` (`farelens config keys`; docs/operations.md).
    public static let configKeys: [ConfigKeySpec] = {
        let defaults = AlertDeliverySettings()
        let retry = defaults.retryPolicy
        return [
            ConfigKeySpec("alerts.webhook.url", .string, "the Standard Webhooks receiver (http or https); absent: no webhook channel"),
            ConfigKeySpec("alerts.webhook.secrets", .secret, "space-separated whsec_ secrets, each signing every webhook; required with the URL"),
            ConfigKeySpec("alerts.webhook.timeoutSeconds", .integer, default: "15", "bound on one attempt"),
            ConfigKeySpec("alerts.webhook.maxAttempts", .integer, default: "\(retry.maxAttempts)", "attempts before an alert is dead-lettered"),
            ConfigKeySpec("alerts.webhook.initialBackoffSeconds", .integer, default: "\(retry.initialBackoff.components.seconds)", "delay after the first failed attempt, doubling"),
            ConfigKeySpec("alerts.webhook.maxBackoffSeconds", .integer, default: "\(retry.maxBackoff.components.seconds)", "longest delay between attempts"),
            ConfigKeySpec("alerts.log.path", .string, "the log channel's JSON-lines file; absent: the service log"),
            ConfigKeySpec("alerts.retentionDays", .integer, default: "\(defaults.retentionDays)", "decisions older than this are deleted"),
            ConfigKeySpec("alerts.gatherMilliseconds", .integer, default: "\(milliseconds(defaults.gatheringWindow))",
                          "events within this of a batch's first are decided with it (0: no wait)"),
            ConfigKeySpec("alerts.apns.keyPath", .string, "the APNs token-signing key (.p8); absent: no push channel"),
            ConfigKeySpec("alerts.apns.keyID", .string, "the signing key's 10-character id; required with the key"),
            ConfigKeySpec("alerts.apns.teamID", .string, "the 10-character team id; required with the key"),
            ConfigKeySpec("alerts.apns.topic", .string, "the app's bundle id (apns-topic); required with the key"),
            ConfigKeySpec("alerts.apns.baseURL", .string, "one APNs gateway for every device (https); absent: each device's environment"),
            ConfigKeySpec("alerts.apns.trustRoots", .string, "PEM file of extra certificate authorities to trust (a stub, a proxy)"),
            ConfigKeySpec("alerts.apns.timeoutSeconds", .integer, default: "10", "bound on one push"),
        ]
    }()

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
