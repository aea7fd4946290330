import Crypto
import Foundation

/// A Standard Webhooks signing secret, `whsec_` followed by the base64 of a
/// random key of 24 to 64 bytes (192 to 512 bits, as the spec asks).
///
/// The key never leaves this value as text: `description`, `debugDescription`
/// and the mirror `dump` reads all show `whsec_…(redacted, N bytes)`, so a
/// secret that reaches a log line or an error message shows only its length.
public struct WebhookSecret: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The prefix every serialized secret starts with.
    public static let prefix = "whsec_"
    /// Fewest key bytes accepted (the spec's minimum, 192 bits).
    public static let minimumBytes = 24
    /// Most key bytes accepted (the spec's maximum, 512 bits).
    public static let maximumBytes = 64

    /// The decoded key the HMAC is computed with.
    let key: SymmetricKey

    /// The length of the decoded key in bytes.
    public var byteCount: Int { key.bitCount / 8 }

    /// Parses `whsec_<base64>`; surrounding whitespace is ignored, missing
    /// base64 padding is tolerated.
    ///
    /// - Throws: ``WebhookSecretError``: `webhook-secret-prefix`,
    ///   `webhook-secret-base64`, `webhook-secret-short` or
    ///   `webhook-secret-long`. No error repeats any part of `text`.
    public init(_ text: String) throws(WebhookSecretError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix(Self.prefix) else { throw .prefix }
        var encoded = String(trimmed.dropFirst(Self.prefix.count))
        if encoded.count % 4 != 0 { encoded += String(repeating: "=", count: 4 - encoded.count % 4) }
        guard !encoded.isEmpty, let bytes = Data(base64Encoded: encoded) else { throw .base64 }
        guard bytes.count >= Self.minimumBytes else { throw .short(bytes.count) }
        guard bytes.count <= Self.maximumBytes else { throw .long(bytes.count) }
        key = SymmetricKey(data: bytes)
    }

    /// A secret holding `key` as it is (tests and tools; length unchecked).
    init(key: SymmetricKey) {
        self.key = key
    }

    public var description: String { "\(Self.prefix)…(redacted, \(byteCount) bytes)" }
    public var debugDescription: String { "WebhookSecret(\(description))" }
    public var customMirror: Mirror { Mirror(self, children: ["byteCount": byteCount], displayStyle: .struct) }
}

/// Why a `whsec_` secret cannot be used: a stable `code` and a message that
/// never contains any part of the secret.
public struct WebhookSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `webhook-secret-prefix`, `webhook-secret-base64`, `webhook-secret-short` or `webhook-secret-long`.
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    /// The text does not start with `whsec_`.
    static let prefix = WebhookSecretError(code: "webhook-secret-prefix", message: "a webhook secret must start with 'whsec_'")
    /// What follows `whsec_` is not base64.
    static let base64 = WebhookSecretError(code: "webhook-secret-base64", message: "what follows 'whsec_' is not valid base64")
    /// The decoded key is too short.
    static func short(_ count: Int) -> WebhookSecretError {
        .init(code: "webhook-secret-short", message: "the key is \(count) bytes; at least \(WebhookSecret.minimumBytes) are needed")
    }
    /// The decoded key is too long.
    static func long(_ count: Int) -> WebhookSecretError {
        .init(code: "webhook-secret-long", message: "the key is \(count) bytes; at most \(WebhookSecret.maximumBytes) are allowed")
    }
}
