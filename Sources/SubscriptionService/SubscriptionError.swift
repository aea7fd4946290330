public import FareLensServiceKit

/// What the subscription service answers when it cannot do what was asked:
/// a stable code (the `remote_code` its callers see) and a message naming
/// the field or user at fault. Codes are listed in `Protos/subscription.proto`.
public typealias SubscriptionError = ServiceFailure<SubscriptionErrorKind>

/// The kinds of ``SubscriptionError``, each with its code.
public enum SubscriptionErrorKind: String, ServiceFailureKind {
    case invalidField = "invalid-field"
    case unknownUser = "unknown-user"
    case emailTaken = "email-taken"
    case unknownAirport = "unknown-airport"
    case airportLimit = "airport-limit"
    case airportsUnavailable = "airports-unavailable"
    case storage = "storage"
    case weakPassword = "weak-password"
    case invalidCredentials = "invalid-credentials"
    case invalidRefreshToken = "invalid-refresh-token"
    case refreshTokenReused = "refresh-token-reused"
    case appStoreNotConfigured = "appstore-not-configured"
    case malformedSignedPayload = "malformed-signed-payload"
    case untrustedSignature = "untrusted-signature"
    case wrongBundleID = "wrong-bundle-id"
    case wrongEnvironment = "wrong-environment"
    case wrongAppAppleID = "wrong-app-apple-id"
    case appAccountTokenMismatch = "app-account-token-mismatch"

    public var code: String { rawValue }
}

extension ServiceFailure where Kind == SubscriptionErrorKind {
    /// A field is missing or malformed; `field` is its name in the request.
    public static func invalidField(_ field: String, _ reason: String) -> SubscriptionError {
        .init(.invalidField, field: field, "\(field): \(reason)")
    }
    /// No user has this id (or email).
    public static func unknownUser(_ key: String) -> SubscriptionError {
        .init(.unknownUser, "no user '\(key)'")
    }
    /// Another user has this email.
    public static func emailTaken(_ email: String) -> SubscriptionError {
        .init(.emailTaken, field: "email", "email: '\(email)' belongs to another user")
    }
    /// The directory knows no airport or metro with this code.
    public static func unknownAirport(_ code: String, field: String) -> SubscriptionError {
        .init(.unknownAirport, field: field, "\(field): '\(code)' is not a known IATA airport or metro code")
    }
    /// More preferred airports than the tier allows.
    public static func airportLimit(_ count: Int, allowed: Int, tier: String) -> SubscriptionError {
        .init(.airportLimit, field: "preferred_airports", "preferred_airports: \(count) given; \(tier) allows \(allowed)")
    }
    /// The airport directory (the search service) could not be asked.
    public static func airportsUnavailable(_ reason: String) -> SubscriptionError {
        .init(.airportsUnavailable, "airport codes cannot be checked now: \(reason)")
    }
    /// Search's directory failed to answer with `cause` (kept as ``underlying``).
    public static func airportsUnavailable(cause: any Error) -> SubscriptionError {
        .init(.airportsUnavailable, "airport codes cannot be checked now: \(cause)", underlying: cause)
    }
    /// A password too short, or too long for bcrypt.
    public static func weakPassword(_ reason: String) -> SubscriptionError {
        .init(.weakPassword, field: "password", "password: \(reason)")
    }
    /// No account with this email and password; which of the two is wrong is not said.
    public static var invalidCredentials: SubscriptionError {
        .init(.invalidCredentials, "the email or the password is wrong")
    }
    /// A refresh token that is unknown, expired or revoked.
    public static var invalidRefreshToken: SubscriptionError {
        .init(.invalidRefreshToken, field: "refresh_token", "refresh_token: unknown, expired or revoked; sign in again")
    }
    /// A refresh token presented after it was rotated: its family is now revoked.
    public static var refreshTokenReused: SubscriptionError {
        .init(.refreshTokenReused, field: "refresh_token", "refresh_token: already used once; every session of this sign-in is revoked, sign in again")
    }
    /// `appstore.bundleId` is not set: no signed App Store payload can be checked.
    public static var appStoreNotConfigured: SubscriptionError {
        .init(.appStoreNotConfigured, "the App Store is not configured here (appstore.bundleId); nothing signed by it can be checked")
    }
    /// Not a compact JWS, or its payload is not the App Store's shape; `field` names the JWS.
    public static func malformedSignedPayload(_ field: String, _ reason: String) -> SubscriptionError {
        .init(.malformedSignedPayload, field: field, "\(field): \(reason)")
    }
    /// The signature, its algorithm or its certificate chain cannot be trusted.
    public static func untrustedSignature(_ field: String, _ reason: String) -> SubscriptionError {
        .init(.untrustedSignature, field: field, "\(field): \(reason)")
    }
    /// Signed for another app.
    public static func wrongBundleID(_ field: String, got: String, expected: String) -> SubscriptionError {
        .init(.wrongBundleID, field: field, "\(field): signed for bundle '\(got)', this server serves '\(expected)'")
    }
    /// Signed in the other App Store environment.
    public static func wrongEnvironment(_ field: String, got: String, expected: String) -> SubscriptionError {
        .init(.wrongEnvironment, field: field, "\(field): signed in '\(got)', this server takes '\(expected)'")
    }
    /// Production: signed for another app's Apple id.
    public static func wrongAppAppleID(got: Int64?, expected: Int64) -> SubscriptionError {
        .init(.wrongAppAppleID, field: "signed_payload", "signed_payload: appAppleId \(got.map(String.init) ?? "absent"), this server's app is \(expected)")
    }
    /// A restore's transaction belongs to another user, or names none.
    public static func appAccountTokenMismatch(_ reason: String) -> SubscriptionError {
        .init(.appAccountTokenMismatch, field: "signed_transaction", "signed_transaction: \(reason)")
    }
    /// The service's database failed.
    public static func storage(_ reason: String) -> SubscriptionError {
        .init(.storage, "storage: \(reason)")
    }
    /// The service's database failed with `error` (kept as ``underlying``).
    public static func storage(_ error: any Error) -> SubscriptionError {
        .init(.storage, "storage: \(error)", underlying: error)
    }
}
