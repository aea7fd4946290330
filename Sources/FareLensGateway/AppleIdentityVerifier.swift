import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import Logging
import NIOCore

/// Verifies the app's Sign in with Apple identity tokens (RS256) against
/// Apple's published keys (docs/api.md, "Sign in with Apple"): the
/// signature by a key of the JWKS, issuer `https://appleid.apple.com`,
/// audience the app's bundle id, expiry on the gateway's clock, and the
/// nonce the app hashed into the token. The JWKS comes from a file (tests,
/// offline) or a URL, fetched once and again when a token names a key it
/// does not hold (Apple rotates them), at most once a minute.
actor AppleIdentityVerifier {
    /// What a verified token says.
    struct Identity: Sendable {
        let subject: String
        let email: String?
    }

    private let settings: GatewaySettings.Apple
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var keys: JWTKeyCollection?
    private var lastFetch: Date?

    init(settings: GatewaySettings.Apple, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.settings = settings
        self.now = now
        self.logger = logger
    }

    /// The identity in `token`, or a 401 problem saying what failed (503 if Apple's keys cannot be had).
    func verify(_ token: String, rawNonce: String) async throws(Problem) -> Identity {
        var claims: AppleIdentityToken
        do {
            claims = try await decode(token, refreshing: false)
        } catch let problem {
            guard problem.code == "apple-unknown-key", settings.jwksFile == nil else { throw problem }
            claims = try await decode(token, refreshing: true)
        }
        guard claims.audience.value.contains(settings.bundleID) else { throw Self.refused("its audience is not this app (\(settings.bundleID))") }
        guard claims.expires.value > now() else { throw Self.refused("it has expired") }
        guard let nonce = claims.nonce else { throw Self.refused("it carries no nonce") }
        let hashed = SHA256.hash(data: Data(rawNonce.utf8)).map { String(format: "%02x", $0) }.joined()
        guard !rawNonce.isEmpty, nonce == hashed || nonce == rawNonce else { throw Self.refused("its nonce is not the one sent") }
        return Identity(subject: claims.subject.value, email: claims.email)
    }

    private func decode(_ token: String, refreshing: Bool) async throws(Problem) -> AppleIdentityToken {
        let collection = try await collection(refresh: refreshing)
        do {
            return try await collection.verify(token, as: AppleIdentityToken.self, expectedAudience: settings.bundleID)
        } catch let error as JWTError {
            switch error.errorType {
            case .noKeyProvided, .unknownKID, .missingKIDHeader: throw Problem.unauthorized("apple-unknown-key", "the identity token is signed by a key Apple does not publish")
            case .claimVerificationFailure: throw Self.refused("its issuer is not Apple, its audience is not this app, or it has expired")
            default: throw Self.refused("its signature does not verify")
            }
        } catch {
            throw Self.refused("it is not a signed JWT")
        }
    }

    private static func refused(_ why: String) -> Problem {
        Problem.unauthorized("invalid-identity-token", "the Sign in with Apple identity token is refused: \(why)")
    }

    private func collection(refresh: Bool) async throws(Problem) -> JWTKeyCollection {
        if let keys, !refresh { return keys }
        if refresh, let lastFetch, now().timeIntervalSince(lastFetch) < 60, let keys { return keys }
        let json: String
        do {
            if let file = settings.jwksFile {
                json = try String(contentsOfFile: file, encoding: .utf8)
            } else {
                var request = HTTPClientRequest(url: settings.jwksURL)
                request.method = .GET
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                guard response.status == .ok else { throw Problem.unavailable("Apple's keys answered \(response.status.code)") }
                json = String(buffer: try await response.body.collect(upTo: 1 << 20))
            }
        } catch {
            logger.error("Apple's keys could not be read", metadata: ["source": "\(settings.jwksFile ?? settings.jwksURL)"])
            throw Problem.unavailable("Sign in with Apple cannot verify tokens now (Apple's keys could not be read)", retryAfterSeconds: 30)
        }
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwksJSON: json)
        } catch {
            throw Problem.unavailable("Apple's keys are not a JWKS", retryAfterSeconds: 30)
        }
        // A token that names no key, or an unknown one, must not verify against whichever came first.
        await collection.clearDefault()
        keys = collection
        lastFetch = now()
        return collection
    }
}
