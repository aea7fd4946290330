import Crypto
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import JWTKit
import Logging
import Synchronization

/// The keys that sign and verify access tokens: ES256, each with a `kid`.
/// The newest signs; all verify, so a rotation does not sign anyone out.
/// A token whose `kid` is not one of them is refused: the collection has
/// no default key to fall back on.
struct SessionKeys: Sendable {
    let collection: JWTKeyCollection
    /// Tokens whose signature has been verified, by their exact text: an
    /// ES256 verification costs far more than the rest of a small request,
    /// and an app sends the same token for an hour. The claims are checked
    /// again on every use (expiry against the clock); the cache lives as
    /// long as the process, so a key removed at a restart takes its tokens with it.
    let verified = VerifiedTokens()
    /// The `kid` new tokens are signed with.
    let signingKID: String
    /// Every `kid` that verifies.
    let kids: [String]

    /// What went wrong with a presented access token (each answered 401).
    enum Rejection: String, Error, Sendable, CaseIterable {
        case malformed = "malformed"
        case badSignature = "bad-signature"
        case unknownKey = "unknown-key"
        case wrongIssuer = "wrong-issuer"
        case wrongAudience = "wrong-audience"
        case expired = "expired"
        case notYetValid = "not-yet-valid"
    }

    /// The private keys, newest first, before they are put into a collection.
    struct Loaded: Sendable {
        let keys: [(kid: String, key: P256.Signing.PrivateKey)]
    }

    /// The keys from `settings.signingKeyFiles`, or else the gateway's database (made on first start).
    static func load(settings: GatewaySettings, database: ServiceDatabase, logger: Logger) throws -> Loaded {
        var pems: [String] = []
        if settings.signingKeyFiles.isEmpty {
            pems = try database.write { db -> [String] in
                var stored = try SigningKeyRecord.order(Column("createdAtUnixMs").desc).fetchAll(db)
                if stored.isEmpty {
                    let key = P256.Signing.PrivateKey()
                    let record = SigningKeyRecord(kid: kid(of: key), privateKeyPEM: key.pemRepresentation, createdAtUnixMs: Int64(Date().timeIntervalSince1970 * 1000))
                    try record.insert(db)
                    stored = [record]
                }
                return stored.map(\.privateKeyPEM)
            }
        } else {
            for path in settings.signingKeyFiles {
                do {
                    pems.append(try String(contentsOfFile: path, encoding: .utf8))
                } catch {
                    throw ConfigurationError.invalid(key: "gateway.signingKeyFiles", value: path, expected: "a readable PEM file of an ES256 (P-256) private key")
                }
            }
        }
        var keys: [(String, P256.Signing.PrivateKey)] = []
        for (index, pem) in pems.enumerated() {
            guard let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) else {
                let source = settings.signingKeyFiles.isEmpty ? "the gateway database's key \(index + 1)" : settings.signingKeyFiles[index]
                throw ConfigurationError.invalid(key: "gateway.signingKeyFiles", value: source, expected: "an ES256 (P-256) private key in PEM")
            }
            keys.append((kid(of: key), key))
        }
        logger.info("session keys loaded", metadata: ["signing-kid": "\(keys[0].0)", "keys": "\(keys.count)"])
        return Loaded(keys: keys)
    }

    /// The collection of `loaded`'s keys, each under its `kid`, with no default key.
    static func make(_ loaded: Loaded) async throws -> SessionKeys {
        let collection = JWTKeyCollection()
        for (kid, key) in loaded.keys {
            await collection.add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation), kid: JWKIdentifier(string: kid))
        }
        // The first key added became the default, which would verify a token naming no kid or an unknown one.
        await collection.clearDefault()
        return SessionKeys(collection: collection, signingKID: loaded.keys[0].kid, kids: loaded.keys.map(\.kid))
    }

    /// A key's id: the first 16 hex digits of the SHA-256 of its public key (same key, same id, on every gateway).
    static func kid(of key: P256.Signing.PrivateKey) -> String {
        SHA256.hash(data: key.publicKey.derRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Signs `claims` with the newest key.
    func sign(_ claims: AccessClaims) async throws -> String {
        try await collection.sign(claims, kid: JWKIdentifier(string: signingKID))
    }

    /// The claims of `token` if its signature, key, issuer, audience and times hold at `now`.
    func verify(_ token: String, issuer: String, audience: String, at now: Date) async throws(Rejection) -> AccessClaims {
        let claims: AccessClaims
        if let known = verified.claims(for: token) {
            claims = known
        } else {
            claims = try await verifySignature(token)
            verified.remember(token, claims)
        }
        guard claims.iss.value == issuer else { throw .wrongIssuer }
        guard claims.aud.value.contains(audience) else { throw .wrongAudience }
        guard claims.exp.value > now else { throw .expired }
        guard claims.iat.value <= now.addingTimeInterval(60) else { throw .notYetValid }
        return claims
    }

    private func verifySignature(_ token: String) async throws(Rejection) -> AccessClaims {
        do {
            return try await collection.verify(token, as: AccessClaims.self)
        } catch let error as JWTError {
            switch error.errorType {
            case .noKeyProvided, .unknownKID, .missingKIDHeader: throw .unknownKey
            case .signatureVerificationFailed: throw .badSignature
            default: throw .malformed
            }
        } catch {
            throw .malformed
        }
    }
}

/// Access tokens whose signature verified, by their text; at most
/// `capacity`, emptied when full (a new hour's tokens refill it).
final class VerifiedTokens: Sendable {
    private let table = Mutex<[String: AccessClaims]>([:])
    let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    func claims(for token: String) -> AccessClaims? {
        table.withLock { $0[token] }
    }

    func remember(_ token: String, _ claims: AccessClaims) {
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[token] = claims
        }
    }
}
