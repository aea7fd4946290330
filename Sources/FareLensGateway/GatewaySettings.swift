public import Configuration
public import FareLensServiceKit
import Foundation

/// What the gateway reads from its section of the configuration
/// (`gateway.*`, `FARELENS_GATEWAY_*`; docs/operations.md lists each key).
public struct GatewaySettings: Sendable {
    /// `gateway.listen` / `--http-listen`: HOST:PORT, 127.0.0.1:8080 by
    /// default; port 0 lets the system choose (tests).
    public var host = "127.0.0.1"
    public var port = 8080
    /// `gateway.issuer` and `gateway.audience`: the access tokens' `iss` and `aud`.
    public var issuer = "farelens"
    public var audience = "farelens-app"
    /// `gateway.accessTokenSeconds`: an access token's life, 3600 (SPEC § 8).
    public var accessTokenLifetime: Duration = .seconds(3600)
    /// `gateway.signingKeyFiles`: PEM files of ES256 private keys, comma-separated;
    /// the first signs, every one verifies (a rotation). Unset: a key kept in
    /// the gateway's own database, made on first start.
    public var signingKeyFiles: [String] = []
    /// `gateway.maxBodyBytes`: larger request bodies are refused with 413.
    public var maxBodyBytes = 64 * 1024
    /// `gateway.userBurst` and `gateway.userPerSecond`: each user's token bucket.
    public var userBurst = 60.0
    public var userPerSecond = 2.0
    /// `gateway.signInBurst` and `gateway.signInPerMinute`: each client address's
    /// bucket for sign-in, sign-up and refresh.
    public var signInBurst = 10.0
    public var signInPerMinute = 10.0

    /// `gateway.tls.certificateFile` and `gateway.tls.keyFile`: PEM files of
    /// the certificate chain and its private key; with both, the gateway
    /// speaks TLS 1.3 only (HTTPS); with neither, plain HTTP.
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?

    /// Sign in with Apple (`gateway.apple.*`); off without a bundle id.
    public struct Apple: Sendable {
        /// `gateway.apple.bundleId`: the identity tokens' audience.
        public var bundleID: String
        /// `gateway.apple.jwksUrl`: Apple's published keys.
        public var jwksURL = "https://appleid.apple.com/auth/keys"
        /// `gateway.apple.jwksFile`: the keys from a file instead (tests, offline).
        public var jwksFile: String?
    }
    /// Sign in with Apple, when `gateway.apple.bundleId` is set.
    public var apple: Apple?

    /// `gateway.affiliate.postbackSecret`: the secret the affiliate network's
    /// postback carries; `gateway.affiliate.signingKey`: the key of its
    /// HMAC-SHA256 signature, when it signs. Neither: the postback answers 503.
    public var affiliatePostbackSecret: String?
    public var affiliateSigningKey: String?

    /// The defaults.
    public init() {}

    /// Reads the gateway's section.
    ///
    /// - Throws: ``ConfigurationError`` naming the key at fault.
    public init(_ reader: ConfigReader) throws(ConfigurationError) {
        if let listen = reader.string(forKey: "listen") {
            guard let colon = listen.lastIndex(of: ":"), colon > listen.startIndex, let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
                throw .invalid(key: "gateway.listen", value: listen, expected: "HOST:PORT, e.g. 127.0.0.1:8080")
            }
            host = String(listen[..<colon])
            self.port = port
        }
        issuer = reader.string(forKey: "issuer", default: issuer)
        audience = reader.string(forKey: "audience", default: audience)
        accessTokenLifetime = .seconds(try Self.number(reader, "accessTokenSeconds", 3600, in: 60...86_400))
        signingKeyFiles = (reader.string(forKey: "signingKeyFiles") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        maxBodyBytes = Int(try Self.number(reader, "maxBodyBytes", Double(maxBodyBytes), in: 1024...16_777_216))
        userBurst = try Self.number(reader, "userBurst", userBurst, in: 1...1_000_000)
        userPerSecond = try Self.number(reader, "userPerSecond", userPerSecond, in: 0.001...1_000_000)
        signInBurst = try Self.number(reader, "signInBurst", signInBurst, in: 1...1_000_000)
        signInPerMinute = try Self.number(reader, "signInPerMinute", signInPerMinute, in: 0.001...1_000_000)
        tlsCertificateFile = reader.string(forKey: "tls.certificateFile").flatMap { $0.isEmpty ? nil : $0 }
        tlsKeyFile = reader.string(forKey: "tls.keyFile").flatMap { $0.isEmpty ? nil : $0 }
        if (tlsCertificateFile == nil) != (tlsKeyFile == nil) {
            throw .invalid(
                key: tlsCertificateFile == nil ? "gateway.tls.certificateFile" : "gateway.tls.keyFile", value: "(unset)",
                expected: "both gateway.tls.certificateFile and gateway.tls.keyFile, or neither")
        }
        affiliatePostbackSecret = reader.string(forKey: "affiliate.postbackSecret", isSecret: true).flatMap { $0.isEmpty ? nil : $0 }
        affiliateSigningKey = reader.string(forKey: "affiliate.signingKey", isSecret: true).flatMap { $0.isEmpty ? nil : $0 }
        for (key, value) in [("postbackSecret", affiliatePostbackSecret), ("signingKey", affiliateSigningKey)] where (value?.utf8.count ?? 16) < 16 {
            throw .invalid(key: "gateway.affiliate.\(key)", value: "(\(value?.utf8.count ?? 0) bytes, not shown)", expected: "at least 16 bytes")
        }
        if let bundleID = reader.string(forKey: "apple.bundleId"), !bundleID.isEmpty {
            var apple = Apple(bundleID: bundleID)
            apple.jwksURL = reader.string(forKey: "apple.jwksUrl", default: apple.jwksURL)
            guard apple.jwksURL.hasPrefix("https://") || apple.jwksURL.hasPrefix("http://") else {
                throw .invalid(key: "gateway.apple.jwksUrl", value: apple.jwksURL, expected: "an http(s) URL")
            }
            apple.jwksFile = reader.string(forKey: "apple.jwksFile")
            self.apple = apple
        }
    }

    private static func number(_ reader: ConfigReader, _ key: String, _ fallback: Double, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        let text = reader.string(forKey: ConfigKey(key)) ?? reader.int(forKey: ConfigKey(key)).map(String.init) ?? reader.double(forKey: ConfigKey(key)).map { "\($0)" }
        guard let text else { return fallback }
        guard let value = Double(text), range.contains(value) else {
            throw .invalid(key: "gateway.\(key)", value: text, expected: "a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
