import Crypto
public import Foundation

/// Standard Webhooks symmetric signatures (`v1`, HMAC-SHA256), as sent in the
/// `webhook-signature` header; docs/webhooks.md specifies them for receivers.
///
/// The signed content is `{webhook-id}.{webhook-timestamp}.{body}`, the body
/// byte for byte as sent. Each secret gives one `v1,<base64 HMAC>`; with
/// several (rotation) the header lists them space-separated, in the order
/// the secrets were configured.
public enum WebhookSignature {
    /// The header names, lower-case as the spec writes them.
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"
    /// The version tag of a symmetric signature.
    public static let version = "v1"

    /// The bytes that are signed: `id`, ".", the decimal `timestamp`, ".", `body`.
    public static func signedContent(id: String, timestamp: Int64, body: Data) -> Data {
        var content = Data("\(id).\(timestamp).".utf8)
        content.append(body)
        return content
    }

    /// The `webhook-signature` header value: one `v1,<base64>` per secret, space-separated.
    public static func header(id: String, timestamp: Int64, body: Data, secrets: [WebhookSecret]) -> String {
        let content = signedContent(id: id, timestamp: timestamp, body: body)
        return secrets.map { secret in
            let mac = HMAC<SHA256>.authenticationCode(for: content, using: secret.key)
            return "\(version),\(Data(mac).base64EncodedString())"
        }.joined(separator: " ")
    }
}

/// Checks a received webhook the way a receiver should: the timestamp within
/// a tolerance of its own clock, then any `v1` signature in the header
/// matching any of the receiver's secrets (compared in constant time).
///
/// ```swift
/// let verifier = WebhookVerifier(secrets: [try WebhookSecret("whsec_…")])
/// try verifier.verify(id: id, timestamp: timestamp, signature: signature, body: rawBody)
/// ```
public struct WebhookVerifier: Sendable {
    /// The secrets any one of which may have signed.
    public let secrets: [WebhookSecret]
    /// How far the timestamp may be from the receiver's clock, either way.
    public let tolerance: Duration

    /// A verifier accepting a signature by any of `secrets`, with timestamps
    /// up to `tolerance` (default 5 minutes) in the past or future.
    public init(secrets: [WebhookSecret], tolerance: Duration = .seconds(300)) {
        self.secrets = secrets
        self.tolerance = tolerance
    }

    /// Verifies one received webhook from its three header values and raw body.
    ///
    /// - Parameters:
    ///   - id: `webhook-id`.
    ///   - timestamp: `webhook-timestamp`, decimal Unix seconds.
    ///   - signature: `webhook-signature`, space-separated `version,base64` items;
    ///     versions other than `v1` are ignored.
    ///   - body: the body bytes exactly as received (never re-serialized JSON).
    ///   - now: the receiver's clock.
    /// - Throws: ``WebhookVerificationError``: `webhook-timestamp-invalid`,
    ///   `webhook-timestamp-too-old`, `webhook-timestamp-too-new` or `webhook-signature-mismatch`.
    public func verify(id: String, timestamp: String, signature: String, body: Data, now: Date = Date()) throws(WebhookVerificationError) {
        guard !timestamp.isEmpty, timestamp.utf8.allSatisfy({ (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains($0) }),
              let seconds = Int64(timestamp)
        else { throw .timestampInvalid }
        let skew = Double(seconds) - now.timeIntervalSince1970
        let limit = Double(tolerance.components.seconds) + Double(tolerance.components.attoseconds) * 1e-18
        if skew < -limit { throw .timestampTooOld }
        if skew > limit { throw .timestampTooNew }
        let content = WebhookSignature.signedContent(id: id, timestamp: seconds, body: body)
        for item in signature.split(separator: " ", omittingEmptySubsequences: true) {
            let parts = item.split(separator: ",", maxSplits: 1)
            guard parts.count == 2, parts[0] == WebhookSignature.version, let mac = Data(base64Encoded: String(parts[1])) else { continue }
            for secret in secrets where HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: content, using: secret.key) {
                return
            }
        }
        throw .signatureMismatch
    }
}

/// Why a received webhook is not accepted (stable `code`, one-line message).
public struct WebhookVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String

    public var description: String { "\(code): \(message)" }

    static let timestampInvalid = WebhookVerificationError(
        code: "webhook-timestamp-invalid", message: "webhook-timestamp is not decimal Unix seconds")
    static let timestampTooOld = WebhookVerificationError(
        code: "webhook-timestamp-too-old", message: "webhook-timestamp is older than the tolerance")
    static let timestampTooNew = WebhookVerificationError(
        code: "webhook-timestamp-too-new", message: "webhook-timestamp is further in the future than the tolerance")
    static let signatureMismatch = WebhookVerificationError(
        code: "webhook-signature-mismatch", message: "no v1 signature matches any known secret")
}
