public import Configuration
import Foundation

/// Where and how the webhook channel posts (see docs/webhooks.md).
public struct WebhookSettings: Sendable {
    /// The receiver's URL, http or https.
    public var url: String
    /// Every secret signs each webhook (one `v1,…` each, in this order): the
    /// current one first, during a rotation the previous one after it.
    public var secrets: [WebhookSecret]
    /// Bounds one whole attempt: connecting, sending and the response head.
    public var timeout: Duration

    /// Settings for one endpoint.
    public init(url: String, secrets: [WebhookSecret], timeout: Duration = .seconds(15)) {
        self.url = url
        self.secrets = secrets
        self.timeout = timeout
    }
}

/// The delivery channels' configuration: keys under `alerts.` (environment
/// `FARELENS_ALERTS_…`).
///
/// | key | meaning | default |
/// | --- | --- | --- |
/// | `webhook.url` | http(s) URL the webhook channel posts to | absent: no webhook channel |
/// | `webhook.secrets` | space-separated `whsec_…` secrets, all of which sign | required with `webhook.url` |
/// | `webhook.timeoutSeconds` | bound on one attempt | 15 |
/// | `webhook.maxAttempts` | attempts before an alert is dead-lettered | 8 |
/// | `webhook.initialBackoffSeconds` | delay after the first failed attempt | 10 |
/// | `webhook.maxBackoffSeconds` | longest delay between attempts | 1800 |
/// | `log.path` | JSON-lines file the log channel appends to | absent: the service logger |
/// | `retentionDays` | decisions (and their outbox rows) older than this are deleted | 90 |
/// | `gatherMilliseconds` | events arriving within this of a batch's first are decided with it, so they compete for the cap (0: no wait) | 100 |
/// | `apns.*` | the APNs push channel (``ApnsSettings``) | absent: no push channel |
public struct AlertDeliverySettings: Sendable {
    /// Nil when `alerts.webhook.url` is absent: there is no webhook channel.
    public var webhook: WebhookSettings?
    /// Nil when `alerts.apns.keyPath` is absent: there is no push channel.
    public var apns: ApnsSettings?
    /// Retries for every channel (the keys are the webhook's, which needs them most).
    public var retryPolicy = RetryPolicy()
    /// `alerts.log.path`; nil: the log channel writes to the service logger.
    public var logPath: String?
    /// `alerts.retentionDays`: how long decisions are kept.
    public var retentionDays = 90
    /// `alerts.gatherMilliseconds`: events that arrive within this of the
    /// first of a batch are decided with it, so they compete for the daily
    /// cap (docs/alerts.md, "Which candidates compete").
    public var gatheringWindow = Self.defaultGatheringWindow
    /// 100 ms: a watchlist publishes a user's check run at once, so its
    /// events arrive one right after the other, even over the socket; the
    /// rest is room for a busy machine's scheduling.
    public static let defaultGatheringWindow = Duration.milliseconds(100)

    /// No webhook, default retries, the log channel on the logger.
    public init() {}

    /// Reads the keys from a reader scoped to `alerts`. Secrets are read as
    /// secrets (redacted by swift-configuration's access reporting).
    ///
    /// - Throws: ``AlertDeliverySettingsError`` naming the key at fault; its
    ///   message never repeats a secret or the URL.
    public init(reader: ConfigReader) throws(AlertDeliverySettingsError) {
        let timeout = try Self.number(reader, "webhook.timeoutSeconds", range: 1 ... 300) ?? 15
        let attempts = try Self.number(reader, "webhook.maxAttempts", range: 1 ... 100) ?? retryPolicy.maxAttempts
        let initial = try Self.number(reader, "webhook.initialBackoffSeconds", range: 1 ... 86_400) ?? 10
        let maximum = try Self.number(reader, "webhook.maxBackoffSeconds", range: 1 ... 86_400) ?? max(initial, 1800)
        guard maximum >= initial else {
            throw AlertDeliverySettingsError(key: "alerts.webhook.maxBackoffSeconds", message: "must be at least alerts.webhook.initialBackoffSeconds (\(initial))")
        }
        retryPolicy = RetryPolicy(maxAttempts: attempts, initialBackoff: .seconds(initial), maxBackoff: .seconds(maximum))

        retentionDays = try Self.number(reader, "retentionDays", range: 1 ... 36_500) ?? retentionDays
        if let milliseconds = try Self.number(reader, "gatherMilliseconds", range: 0 ... 10_000) { gatheringWindow = .milliseconds(milliseconds) }
        if let path = reader.string(forKey: "log.path") {
            guard !path.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw AlertDeliverySettingsError(key: "alerts.log.path", message: "is empty; leave it out to log to the service logger")
            }
            logPath = path
        }
        apns = try ApnsSettings.read(reader)

        guard let url = reader.string(forKey: "webhook.url")?.trimmingCharacters(in: .whitespaces) else { return }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parsed.host, !host.isEmpty
        else {
            throw AlertDeliverySettingsError(key: "alerts.webhook.url", message: "must be an absolute http:// or https:// URL with a host")
        }
        let text = reader.string(forKey: "webhook.secrets", isSecret: true) ?? ""
        let items = text.split(whereSeparator: \.isWhitespace)
        guard !items.isEmpty else {
            throw AlertDeliverySettingsError(key: "alerts.webhook.secrets", message: "is required when alerts.webhook.url is set: one or more whsec_ secrets, space-separated")
        }
        var secrets: [WebhookSecret] = []
        for (index, item) in items.enumerated() {
            do {
                secrets.append(try WebhookSecret(String(item)))
            } catch {
                throw AlertDeliverySettingsError(key: "alerts.webhook.secrets", message: "secret \(index + 1) of \(items.count): \(error)")
            }
        }
        webhook = WebhookSettings(url: url, secrets: secrets, timeout: .seconds(timeout))
    }

    private static func number(_ reader: ConfigReader, _ key: String, range: ClosedRange<Int>) throws(AlertDeliverySettingsError) -> Int? {
        let configKey = ConfigKey(key)
        guard let value = reader.int(forKey: configKey) ?? reader.string(forKey: configKey).map({ Int($0.trimmingCharacters(in: .whitespaces)) ?? -1 }) else {
            return nil
        }
        guard range.contains(value) else {
            throw AlertDeliverySettingsError(key: "alerts." + key, message: "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

/// An alerts delivery configuration value that cannot be used.
public struct AlertDeliverySettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The full key, e.g. `alerts.webhook.secrets`.
    public let key: String
    public let message: String
    public var description: String { "configuration key \(key): \(message)" }
}
