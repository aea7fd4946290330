public import FareLensServiceKit

extension GatewaySettings {
    /// The keys ``init(_:)`` reads (`gateway.*`), for ``ConfigKeyCatalog``
    /// (`farelens config keys`; docs/operations.md).
    public static let configKeys: [ConfigKeySpec] = {
        let defaults = GatewaySettings()
        let number: (Double) -> String = { $0.rounded() == $0 ? "\(Int($0))" : "\($0)" }
        return [
            ConfigKeySpec("gateway.listen", .string, default: "\(defaults.host):\(defaults.port)", flag: "--http-listen", "HOST:PORT the app's API listens on (port 0: the system chooses)"),
            ConfigKeySpec("gateway.issuer", .string, default: defaults.issuer, "the access tokens' iss"),
            ConfigKeySpec("gateway.audience", .string, default: defaults.audience, "the access tokens' aud"),
            ConfigKeySpec("gateway.accessTokenSeconds", .integer, default: "\(defaults.accessTokenLifetime.components.seconds)", "an access token's life, 60–86400"),
            ConfigKeySpec("gateway.signingKeyFiles", .list, "PEM files of ES256 private keys: the first signs, all verify; absent: a key kept in gateway.sqlite"),
            ConfigKeySpec("gateway.maxBodyBytes", .integer, default: "\(defaults.maxBodyBytes)", "larger request bodies are refused with 413"),
            ConfigKeySpec("gateway.userBurst", .number, default: number(defaults.userBurst), "a user's token bucket"),
            ConfigKeySpec("gateway.userPerSecond", .number, default: number(defaults.userPerSecond), "tokens a user's bucket regains a second"),
            ConfigKeySpec("gateway.signInBurst", .number, default: number(defaults.signInBurst), "sign-in attempts one client address may make at once"),
            ConfigKeySpec("gateway.signInPerMinute", .number, default: number(defaults.signInPerMinute), "sign-in attempts a client address regains a minute"),
            ConfigKeySpec("gateway.tls.certificateFile", .string, "PEM certificate chain; with gateway.tls.keyFile the API speaks TLS 1.3 only"),
            ConfigKeySpec("gateway.tls.keyFile", .string, "PEM private key of that certificate"),
            ConfigKeySpec("gateway.apple.bundleId", .string, "the app's bundle id for Sign in with Apple; absent: off"),
            ConfigKeySpec("gateway.apple.jwksUrl", .string, default: GatewaySettings.Apple(bundleID: "").jwksURL, "Apple's published keys"),
            ConfigKeySpec("gateway.apple.jwksFile", .string, "read Apple's keys from this file instead"),
            ConfigKeySpec("gateway.affiliate.postbackSecret", .secret, "the shared secret of the affiliate network's postback (≥ 16 bytes); absent with no signingKey: the postback answers 503"),
            ConfigKeySpec("gateway.affiliate.signingKey", .secret, "the HMAC-SHA256 key of the postback's X-Postback-Signature, when the network signs (≥ 16 bytes)"),
        ]
    }()
}
