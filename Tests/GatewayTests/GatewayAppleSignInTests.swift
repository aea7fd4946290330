import Crypto
import CryptoExtras
import FareLensTesting
import Foundation
import JWTKit
import NIOHTTP1
import Testing

/// An Apple of the test's own: an RSA key published as a JWKS file, and
/// identity tokens signed with it as Apple's servers sign theirs.
struct TestApple: Sendable {
    let key: JWTKit.Insecure.RSA.PrivateKey
    let kid = "test-apple-key"
    let jwksFile: String

    init(directory: String) throws {
        key = try JWTKit.Insecure.RSA.PrivateKey(backing: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let jwks = #"{"keys":[{"kty":"RSA","kid":"\#(kid)","use":"sig","alg":"RS256","n":"\#(GatewayTokenTests.base64URL(modulus))","e":"\#(GatewayTokenTests.base64URL(exponent))"}]}"#
        jwksFile = directory + "/apple-jwks.json"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try jwks.write(toFile: jwksFile, atomically: true, encoding: .utf8)
    }

    /// An identity token for `subject`, its nonce the SHA-256 of `nonce` as the app sends it.
    func token(subject: String, nonce: String, audience: String = "app.farelens.ios", email: String? = nil, kid: String? = nil, expires: Date = Date().addingTimeInterval(600)) async throws -> String {
        let hashed = SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
        let claims = AppleIdentityToken(
            issuer: "https://appleid.apple.com", audience: .init(value: [audience]), expires: .init(value: expires), issuedAt: .init(value: Date()),
            subject: .init(value: subject), nonce: hashed, email: email)
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid ?? self.kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid ?? self.kid))
    }
}

@Suite("Gateway: Sign in with Apple", .serialized)
struct GatewayAppleSignInTests {
    @Test("a verified identity token signs in, creating the user the first time; a wrong audience, nonce, key or expiry is 401")
    func appleSignIn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-apple-\(UUID().uuidString)").path
        let apple = try TestApple(directory: directory)
        let settings = ["gateway.apple.bundleId": "app.farelens.ios", "gateway.apple.jwksFile": apple.jwksFile]
        try await GatewayHarness.with(.split, settings: settings) { _, api in
            func signIn(_ token: String, nonce: String = "n-0123456789") async throws -> APIClient.Reply {
                try await api.send(.POST, "/v1/auth/apple", json: #"{"identity_token":"\#(token)","nonce":"\#(nonce)","time_zone":"Europe/London"}"#)
            }
            let first = try await signIn(try await apple.token(subject: "001234.abc", nonce: "n-0123456789", email: "oliver@privaterelay.appleid.com"))
            #expect(first.status == 201 && first.json["created"] as? Bool == true, "\(first.text)")
            let user = try #require(first.json["user"] as? [String: Any])
            #expect(user["email"] as? String == "oliver@privaterelay.appleid.com" && user["time_zone"] as? String == "Europe/London")
            let again = try await signIn(try await apple.token(subject: "001234.abc", nonce: "n-0123456789"))
            #expect(again.status == 200 && again.json["created"] as? Bool == false)
            #expect((again.json["user"] as? [String: Any])?["user_id"] as? String == user["user_id"] as? String)
            #expect(try await api.send(.GET, "/v1/me", token: again.string("access_token")).status == 200)

            let refused: [(String, APIClient.Reply)] = [
                ("another app's audience", try await signIn(try await apple.token(subject: "001234.abc", nonce: "n-0123456789", audience: "com.other.app"))),
                ("another nonce", try await signIn(try await apple.token(subject: "001234.abc", nonce: "n-0123456789"), nonce: "n-replayed")),
                ("an unknown key", try await signIn(try await apple.token(subject: "001234.abc", nonce: "n-0123456789", kid: "not-apples"))),
                ("expired", try await signIn(try await apple.token(subject: "001234.abc", nonce: "n-0123456789", expires: Date().addingTimeInterval(-60)))),
                ("not a token", try await signIn("garbage")),
            ]
            for (name, reply) in refused {
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(reply.code == "invalid-identity-token" || reply.code == "apple-unknown-key", "\(name): \(reply.text)")
            }
        }
    }

    @Test("without gateway.apple.bundleId the operation answers 404 apple-sign-in-off")
    func off() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let reply = try await api.send(.POST, "/v1/auth/apple", json: #"{"identity_token":"x","nonce":"y"}"#)
            #expect(reply.status == 404 && reply.code == "apple-sign-in-off")
        }
    }
}
