import Crypto
import FareLensTesting
import Foundation
import JWTKit
import NIOHTTP1
import Testing

/// Claims as an attacker would write them (the gateway's own type is internal).
struct ForgedClaims: JWTPayload {
    var sub: SubjectClaim
    var sid: String
    var iss: IssuerClaim
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

@Suite("Gateway: every tampered, foreign or expired access token is refused with 401", .serialized)
struct GatewayTokenTests {
    /// A token for `user` signed with the PEM key in `keyFile` under its real kid, with the claims adjusted.
    static func forge(user: String, keyFile: String, kid: String? = nil, now: Date, adjust: (inout ForgedClaims) -> Void = { _ in }) async throws -> String {
        let key = try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: keyFile, encoding: .utf8))
        let realKID = SHA256.hash(data: key.publicKey.derRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
        var claims = ForgedClaims(
            sub: .init(value: user), sid: "f-test", iss: .init(value: "farelens"), aud: .init(value: ["farelens-app"]), iat: .init(value: now),
            exp: .init(value: now.addingTimeInterval(600)))
        adjust(&claims)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation), kid: JWKIdentifier(string: kid ?? realKID))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid ?? realKID))
    }

    /// Decodes base64url without padding; nil when it is not base64url.
    static func decodeBase64URL(_ text: some StringProtocol) -> Data? {
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return Data(base64Encoded: standard + String(repeating: "=", count: (4 - standard.count % 4) % 4))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("alg none, a flipped signature bit, a foreign key, an unknown or missing kid, wrong issuer or audience, expiry: each 401 with WWW-Authenticate")
    func tamperedTokens() async throws {
        try await GatewayHarness.with(.oneProcess) { harness, api in
            let session = try await api.signUp("ana@example.com")
            let token = try #require(session.string("access_token"))
            let user = try #require((session.json["user"] as? [String: Any])?["user_id"] as? String)
            #expect(try await api.send(.GET, "/v1/me", token: token).status == 200)
            let now = harness.clock.now()
            let keyFile = harness.keyFiles[0]
            let foreignKey = harness.dataDirectory + "/foreign.pem"
            try P256.Signing.PrivateKey().pemRepresentation.write(toFile: foreignKey, atomically: true, encoding: .utf8)

            let parts = token.split(separator: ".").map(String.init)
            var signature = try #require(Self.decodeBase64URL(parts[2]))
            signature[5] ^= 0x01
            let headerBytes = try #require(Self.decodeBase64URL(parts[0]))
            let header = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
            let realKID = try #require(header["kid"] as? String)
            let none = Self.base64URL(Data(#"{"alg":"none","typ":"JWT","kid":"\#(realKID)"}"#.utf8)) + "." + parts[1] + "."
            let attacks: [(String, String)] = [
                ("alg none", none),
                ("flipped signature bit", parts[0] + "." + parts[1] + "." + Self.base64URL(signature)),
                ("another user's id in the claims", parts[0] + "." + Self.base64URL(Data(#"{"sub":"u-0000000000000001"}"#.utf8)) + "." + parts[2]),
                ("a foreign key under the real kid", try await Self.forge(user: user, keyFile: foreignKey, kid: realKID, now: now)),
                ("an unknown kid", try await Self.forge(user: user, keyFile: keyFile, kid: "0000000000000000", now: now)),
                ("wrong issuer", try await Self.forge(user: user, keyFile: keyFile, now: now) { $0.iss = .init(value: "someone-else") }),
                ("wrong audience", try await Self.forge(user: user, keyFile: keyFile, now: now) { $0.aud = .init(value: ["another-app"]) }),
                ("expired", try await Self.forge(user: user, keyFile: keyFile, now: now) { $0.exp = .init(value: now.addingTimeInterval(-1)) }),
                ("garbage", "not.a.token"),
            ]
            for (name, attack) in attacks {
                let reply = try await api.send(.GET, "/v1/me", token: attack)
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(reply.code == "invalid-token", "\(name): \(reply.text)")
                #expect(reply.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true, "\(name)")
            }
            let missing = try await api.send(.GET, "/v1/me")
            #expect(missing.status == 401 && missing.code == "missing-token")
            // The control: the key the gateway trusts, with the claims it expects, is accepted.
            #expect(try await api.send(.GET, "/v1/me", token: try await Self.forge(user: user, keyFile: keyFile, now: now)).status == 200)
        }
    }

    @Test("an access token works for its hour and is refused after it, on the gateway's clock")
    func expiresAfterAnHour() async throws {
        try await GatewayHarness.with(.oneProcess) { harness, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            harness.clock.advance(by: 3599)
            #expect(try await api.send(.GET, "/v1/me", token: token).status == 200)
            harness.clock.advance(by: 1)
            let reply = try await api.send(.GET, "/v1/me", token: token)
            #expect(reply.status == 401 && reply.text.contains("expired"))
        }
    }

    @Test("refresh rotates; the old refresh token again revokes the family; after sign-out a refresh is 401")
    func refreshAndSignOut() async throws {
        try await GatewayHarness.with(.split) { _, api in
            let first = try await api.signUp("ana@example.com")
            let refresh1 = try #require(first.string("refresh_token"))
            let second = try await api.send(.POST, "/v1/auth/refresh", json: #"{"refresh_token":"\#(refresh1)"}"#)
            #expect(second.status == 200 && second.string("refresh_token") != refresh1, "\(second.text)")
            let refresh2 = try #require(second.string("refresh_token"))
            let reused = try await api.send(.POST, "/v1/auth/refresh", json: #"{"refresh_token":"\#(refresh1)"}"#)
            #expect(reused.status == 401 && reused.code == "refresh-token-reused")
            let revoked = try await api.send(.POST, "/v1/auth/refresh", json: #"{"refresh_token":"\#(refresh2)"}"#)
            #expect(revoked.status == 401 && revoked.code == "invalid-refresh-token")

            let signIn = try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"ana@example.com","password":"correct horse battery"}"#)
            #expect(signIn.status == 200)
            let refresh3 = try #require(signIn.string("refresh_token"))
            #expect(try await api.send(.POST, "/v1/auth/signout", json: #"{"refresh_token":"\#(refresh3)"}"#).status == 204)
            let after = try await api.send(.POST, "/v1/auth/refresh", json: #"{"refresh_token":"\#(refresh3)"}"#)
            #expect(after.status == 401 && after.code == "invalid-refresh-token")
            let wrong = try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"ana@example.com","password":"not the password"}"#)
            #expect(wrong.status == 401 && wrong.code == "invalid-credentials")
        }
    }

    @Test("after the account is deleted its access token is 401 and its refresh token too")
    func deletionEndsSessions() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let session = try await api.signUp("ana@example.com")
            let token = try #require(session.string("access_token"))
            let refresh = try #require(session.string("refresh_token"))
            #expect(try await api.send(.DELETE, "/v1/me", token: token).status == 204)
            let me = try await api.send(.GET, "/v1/me", token: token)
            #expect(me.status == 401 && me.code == "user-gone")
            let again = try await api.send(.POST, "/v1/auth/refresh", json: #"{"refresh_token":"\#(refresh)"}"#)
            #expect(again.status == 401)
        }
    }

    @Test("a restart keeps sessions: an access token from before it still works, and so does its refresh token")
    func restartKeepsSessions() async throws {
        let harness = try GatewayHarness(shape: .oneProcess)
        try await harness.start()
        let api = APIClient(port: harness.port.get()!)
        let session = try await api.signUp("ana@example.com")
        try await harness.stop()
        let restarted = try GatewayHarness(shape: .oneProcess, dataDirectory: harness.dataDirectory, keyFiles: harness.keyFiles, clock: harness.clock)
        try await restarted.start()
        let after = APIClient(port: restarted.port.get()!)
        #expect(try await after.send(.GET, "/v1/me", token: session.string("access_token")).status == 200)
        #expect(try await after.send(.POST, "/v1/auth/refresh", json: #"{"refresh_token":"\#(session.string("refresh_token")!)"}"#).status == 200)
        try await restarted.stop()
    }

    @Test("a key rotation signs out no one: a token signed by the previous key verifies while that key is listed second")
    func rotation() async throws {
        let harness = try GatewayHarness(shape: .oneProcess)
        try await harness.start()
        let session = try await APIClient(port: harness.port.get()!).signUp("ana@example.com")
        try await harness.stop()
        let newKey = harness.dataDirectory + "/new-key.pem"
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: newKey, atomically: true, encoding: .utf8)
        let rotated = try GatewayHarness(shape: .oneProcess, dataDirectory: harness.dataDirectory, keyFiles: [newKey, harness.keyFiles[0]], clock: harness.clock)
        try await rotated.start()
        let api = APIClient(port: rotated.port.get()!)
        #expect(try await api.send(.GET, "/v1/me", token: session.string("access_token")).status == 200)
        let fresh = try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"ana@example.com","password":"correct horse battery"}"#)
        let header = try #require(fresh.string("access_token")?.split(separator: ".").first)
        let headerBytes = try #require(Self.decodeBase64URL(header))
        let decoded = try #require(try JSONSerialization.jsonObject(with: headerBytes) as? [String: Any])
        let newKID = SHA256.hash(data: try P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: newKey, encoding: .utf8)).publicKey.derRepresentation)
            .prefix(8).map { String(format: "%02x", $0) }.joined()
        #expect(decoded["kid"] as? String == newKID && decoded["alg"] as? String == "ES256")
        try await rotated.stop()
    }
}
