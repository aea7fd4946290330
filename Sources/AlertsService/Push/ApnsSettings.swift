import Configuration
import Foundation

/// How the APNs channel reaches Apple (docs/push.md): keys under
/// `alerts.apns.` (environment `FARELENS_ALERTS_APNS_…`).
///
/// | key | meaning | default |
/// | --- | --- | --- |
/// | `apns.keyPath` | the `.p8` token-signing key (PKCS #8 PEM, P-256) | absent: no APNs channel |
/// | `apns.keyID` | the key's 10-character id in the developer account | required with the key |
/// | `apns.teamID` | the 10-character team id (the provider token's issuer) | required with the key |
/// | `apns.topic` | the app's bundle id (`apns-topic`) | required with the key |
/// | `apns.baseURL` | one gateway for every device, e.g. a stub | absent: each device's own (production or sandbox) |
/// | `apns.trustRoots` | PEM file of extra certificate authorities to trust | absent: the system's roots only |
/// | `apns.timeoutSeconds` | bound on one push | 10 |
public struct ApnsSettings: Sendable {
    /// Apple's production gateway.
    public static let productionURL = "https://api.push.apple.com"
    /// Apple's development gateway: tokens of development builds.
    public static let sandboxURL = "https://api.sandbox.push.apple.com"

    /// The signing key in PEM, read from `keyPath` at start-up. Never logged.
    public var keyPEM: String
    public var keyID: String
    public var teamID: String
    /// The bundle id.
    public var topic: String
    /// Every push goes here when set; otherwise to ``productionURL`` or
    /// ``sandboxURL`` by the device's environment.
    public var baseURL: String?
    /// Extra trusted certificate authorities, PEM (a stub's, a company proxy's).
    public var trustRootsPEM: String?
    /// Bounds one whole push: connecting, sending and the response.
    public var timeout: Duration

    /// Settings for one key.
    public init(keyPEM: String, keyID: String, teamID: String, topic: String, baseURL: String? = nil, trustRootsPEM: String? = nil, timeout: Duration = .seconds(10)) {
        self.keyPEM = keyPEM
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.baseURL = baseURL
        self.trustRootsPEM = trustRootsPEM
        self.timeout = timeout
    }

    /// Reads `apns.*` from a reader scoped to `alerts`; nil when
    /// `apns.keyPath` is absent (no APNs channel).
    ///
    /// - Throws: ``AlertDeliverySettingsError`` naming the key at fault (a
    ///   missing or unreadable key file, a missing key id, team id or topic,
    ///   a base URL that is not https); never the key itself.
    static func read(_ reader: ConfigReader) throws(AlertDeliverySettingsError) -> ApnsSettings? {
        guard let path = nonEmpty(reader.string(forKey: "apns.keyPath")) else {
            let timeoutSet = reader.int(forKey: "apns.timeoutSeconds") != nil || nonEmpty(reader.string(forKey: "apns.timeoutSeconds")) != nil
            for key in ["apns.keyID", "apns.teamID", "apns.topic", "apns.baseURL", "apns.trustRoots"] where nonEmpty(reader.string(forKey: ConfigKey(key))) != nil {
                throw AlertDeliverySettingsError(key: "alerts.apns.keyPath", message: "is required when alerts.\(key) is set: the .p8 file of the token-signing key")
            }
            if timeoutSet {
                throw AlertDeliverySettingsError(key: "alerts.apns.keyPath", message: "is required when alerts.apns.timeoutSeconds is set: the .p8 file of the token-signing key")
            }
            return nil
        }
        guard let key = try? String(contentsOfFile: path, encoding: .utf8), key.contains("-----BEGIN PRIVATE KEY-----") else {
            throw AlertDeliverySettingsError(key: "alerts.apns.keyPath", message: "'\(path)' is not a readable .p8 file (a PEM 'PRIVATE KEY')")
        }
        func required(_ name: String, _ what: String, pattern: (String) -> Bool) throws(AlertDeliverySettingsError) -> String {
            guard let value = nonEmpty(reader.string(forKey: ConfigKey("apns." + name))) else {
                throw AlertDeliverySettingsError(key: "alerts.apns." + name, message: "is required with alerts.apns.keyPath: \(what)")
            }
            guard pattern(value) else { throw AlertDeliverySettingsError(key: "alerts.apns." + name, message: "'\(value)' is not \(what)") }
            return value
        }
        let tenCharacters: (String) -> Bool = { $0.count == 10 && $0.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) } }
        let keyID = try required("keyID", "the key's 10-character id (upper-case letters and digits)", pattern: tenCharacters)
        let teamID = try required("teamID", "the 10-character team id (upper-case letters and digits)", pattern: tenCharacters)
        let topic = try required("topic", "the app's bundle id, e.g. com.farelens.app", pattern: { !$0.contains(where: \.isWhitespace) && $0.contains(".") })
        var settings = ApnsSettings(keyPEM: key, keyID: keyID, teamID: teamID, topic: topic)
        if let url = nonEmpty(reader.string(forKey: "apns.baseURL")) {
            guard let parsed = URL(string: url), parsed.scheme?.lowercased() == "https", let host = parsed.host, !host.isEmpty, parsed.path.isEmpty || parsed.path == "/" else {
                throw AlertDeliverySettingsError(key: "alerts.apns.baseURL", message: "must be https://HOST[:PORT] (APNs speaks HTTP/2 over TLS only)")
            }
            settings.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        if let roots = nonEmpty(reader.string(forKey: "apns.trustRoots")) {
            guard let pem = try? String(contentsOfFile: roots, encoding: .utf8), pem.contains("-----BEGIN CERTIFICATE-----") else {
                throw AlertDeliverySettingsError(key: "alerts.apns.trustRoots", message: "'\(roots)' is not a readable PEM file of certificates")
            }
            settings.trustRootsPEM = pem
        }
        if let seconds = reader.int(forKey: "apns.timeoutSeconds") ?? reader.string(forKey: "apns.timeoutSeconds").map({ Int($0.trimmingCharacters(in: .whitespaces)) ?? -1 }) {
            guard (1...120).contains(seconds) else {
                throw AlertDeliverySettingsError(key: "alerts.apns.timeoutSeconds", message: "must be a whole number from 1 to 120")
            }
            settings.timeout = .seconds(seconds)
        }
        return settings
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        return text
    }
}
