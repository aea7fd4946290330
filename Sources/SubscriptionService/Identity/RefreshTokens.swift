import Crypto
import FareLensMessages
import Foundation
import GRDB

/// Refresh tokens: made from 256 random bits, kept as SHA-256 digests,
/// valid for 7 days from their issue, rotated on every use
/// (docs/api.md, "Sessions").
enum RefreshTokens {
    /// How long a refresh token works.
    static let lifetimeMs: Int64 = 7 * 86_400_000

    /// A new token's text: 32 random bytes from the system's CSPRNG, base64url without padding.
    static func newToken() -> String {
        let key = SymmetricKey(size: .bits256)
        return key.withUnsafeBytes { Data($0) }.base64URLEncoded
    }

    /// A new family's id: `f-` and 16 random hex digits.
    static func newFamilyID() -> String {
        "f-" + SymmetricKey(size: .init(bitCount: 64)).withUnsafeBytes { Data($0) }.map { String(format: "%02x", $0) }.joined()
    }

    /// The digest stored for `token`.
    static func digest(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Issues a token of `family` (a new family when nil) for `userID` inside
    /// the write transaction `db`; returns the token's text and its row.
    static func issue(
        for userID: String, family: String?, nowMs: Int64, in db: Database
    ) throws -> (token: String, record: RefreshTokenRecord) {
        let token = newToken()
        let record = RefreshTokenRecord(
            digest: digest(token), familyID: family ?? newFamilyID(), userID: userID, issuedAtUnixMs: nowMs,
            expiresAtUnixMs: nowMs + lifetimeMs, state: .active)
        try record.insert(db)
        return (token, record)
    }

    /// Revokes every token of `family`; returns how many were still usable.
    @discardableResult
    static func revokeFamily(_ family: String, in db: Database) throws -> Int {
        let usable = try RefreshTokenRecord.filter(Column("familyID") == family && Column("state") == RefreshTokenRecord.State.active.rawValue).fetchCount(db)
        try RefreshTokenRecord.filter(Column("familyID") == family)
            .updateAll(db, Column("state").set(to: RefreshTokenRecord.State.revoked.rawValue))
        return usable
    }

    /// The grant a sign-in or refresh answers with.
    static func grant(_ user: UserRecord, token: String, record: RefreshTokenRecord, created: Bool) -> SessionGrant {
        var grant = SessionGrant()
        grant.user = user.message
        grant.entitlements = TierEntitlements.of(user.tierValue)
        grant.refreshToken = token
        grant.refreshExpiresAtUnixMs = record.expiresAtUnixMs
        grant.familyID = record.familyID
        grant.created = created
        return grant
    }
}

extension Data {
    /// RFC 4648 §5 base64url, without padding.
    fileprivate var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
