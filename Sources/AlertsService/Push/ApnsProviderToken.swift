import FareLensServiceKit
import Foundation
import JWTKit

/// The provider token every push carries (`authorization: bearer …`): an
/// ES256 JWT with the key id in its header and the team id and issue time
/// as claims, signed by jwt-kit with the `.p8` key.
///
/// APNs' rules (docs/push.md): a token is accepted for 60 minutes after it
/// was issued, and replacing it more often than every 20 minutes is refused
/// (429 TooManyProviderTokenUpdates). So one token is shared by every push
/// and replaced when it is 50 minutes old; one rejected as expired is
/// replaced at once, but only once (many pushes in flight may all report the
/// same token) and only if it is at least 20 minutes old — a younger token
/// refused as expired means the clocks disagree, and a new one would be
/// refused the same way. Time is the transport clock's (real time: APNs
/// compares `iat` with its own clock).
actor ApnsProviderToken {
    /// The claims APNs reads.
    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// A token is replaced when this old.
    static let refreshAge: TimeInterval = 50 * 60
    /// APNs refuses a new token sooner than this after the last.
    static let minimumAge: TimeInterval = 20 * 60

    private let key: ES256PrivateKey
    /// Made on the first signing (adding a key to jwt-kit's collection is asynchronous; the service is built synchronously).
    private var keys: JWTKeyCollection?
    private let keyID: String
    private let teamID: String
    private let clock: TransportClock
    private var current: (token: String, issuedAt: Date)?
    /// The signing under way: pushes that need a new token at the same time share it (two new tokens at
    /// once would count as two updates).
    private var signing: Task<String, any Error>?
    /// Tokens signed so far (for tests and `farelens_alerts_apns_tokens_signed_total`).
    private(set) var signed = 0

    /// A token source for `keyPEM` (PKCS #8 PEM of a P-256 key).
    ///
    /// - Throws: ``ApnsKeyError`` when the PEM is not an ES256 private key (without repeating it).
    init(keyPEM: String, keyID: String, teamID: String, clock: TransportClock) throws(ApnsKeyError) {
        do {
            key = try ES256PrivateKey(pem: keyPEM)
        } catch {
            throw ApnsKeyError()
        }
        self.keyID = keyID
        self.teamID = teamID
        self.clock = clock
    }

    /// The token to send now: the current one, or a new one when there is
    /// none or it is ``refreshAge`` old.
    func token() async throws -> String {
        let now = clock.now()
        if let current, now.timeIntervalSince(current.issuedAt) < Self.refreshAge, now >= current.issuedAt {
            return current.token
        }
        return try await sign(at: now)
    }

    /// What to do after APNs refused `rejected` as expired (403 ExpiredProviderToken).
    enum Renewal: Equatable {
        /// Try again with this token.
        case retryWith(String)
        /// The token was issued less than 20 minutes ago: the clocks disagree; no new token now.
        case tooSoon(ageSeconds: Int)
    }

    /// A new token unless another push already replaced `rejected`, or it
    /// is younger than ``minimumAge``.
    func renew(after rejected: String) async throws -> Renewal {
        let now = clock.now()
        guard let current else { return .retryWith(try await sign(at: now)) }
        if current.token != rejected { return .retryWith(current.token) }
        let age = now.timeIntervalSince(current.issuedAt)
        guard age >= Self.minimumAge else { return .tooSoon(ageSeconds: Int(age)) }
        return .retryWith(try await sign(at: now))
    }

    private func sign(at now: Date) async throws -> String {
        if let signing { return try await signing.value }
        // Whole seconds: `iat` is a NumericDate, and APNs compares it with its clock.
        let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let claims = Claims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: issued))
        let task = Task { [key, keyID, made = keys] in
            let keys = if let made { made } else { await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID)) }
            return (try await keys.sign(claims, kid: JWKIdentifier(string: keyID)), keys)
        }
        signing = Task { try await task.value.0 }
        defer { signing = nil }
        let (token, keys) = try await task.value
        self.keys = keys
        current = (token, issued)
        signed += 1
        return token
    }
}

/// `alerts.apns.keyPath` holds something other than a P-256 private key in PEM.
struct ApnsKeyError: Error, CustomStringConvertible {
    var description: String { "configuration key alerts.apns.keyPath: the file is not an ES256 (P-256) private key in PEM" }
}
