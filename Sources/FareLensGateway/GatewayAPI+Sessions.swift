import FareLensBus
import FareLensMessages
import Foundation
import Hummingbird
import JWTKit

/// Sign-up, sign-in, refresh and sign-out (docs/api.md, "Sessions").
extension GatewayAPI {
    func signUp(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try limitSignIn(context)
        let body = try await ProtoJSON.decode(PasswordSignUpRequest.self, from: request, context: context)
        let grant = try await call(body)
        return try await session(grant, status: .created)
    }

    func signIn(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try limitSignIn(context)
        let body = try await ProtoJSON.decode(PasswordSignInRequest.self, from: request, context: context)
        let answer = try await call(body)
        if answer.retryAfterMs > 0 {
            let seconds = Int((Double(answer.retryAfterMs) / 1000).rounded(.up))
            var headers = HTTPFields()
            headers[.retryAfter] = "\(seconds)"
            throw Problem(.tooManyRequests, code: "account-throttled", "too many failed sign-ins for this account; try again in \(seconds) s", headers: headers)
        }
        return try await session(answer.grant, status: .ok)
    }

    func refresh(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try limitSignIn(context)
        let body = try await ProtoJSON.decode(RefreshSessionRequest.self, from: request, context: context)
        guard !body.refreshToken.isEmpty else { throw Problem.badRequest("invalid-body", "refresh_token: is required", field: "refresh_token") }
        return try await session(try await call(body), status: .ok)
    }

    /// The body of `POST /v1/auth/apple`.
    private struct AppleSignInBody: Decodable {
        let identity_token: String
        let nonce: String
        let time_zone: String?
    }

    func signInWithApple(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try limitSignIn(context)
        guard let apple else {
            throw Problem(.notFound, code: "apple-sign-in-off", "Sign in with Apple is not configured on this server (gateway.apple.bundleId)")
        }
        let bytes = try await ProtoJSON.body(of: request, context: context)
        let body: AppleSignInBody
        do { body = try JSONDecoder().decode(AppleSignInBody.self, from: Data(bytes)) } catch {
            throw Problem.badRequest("invalid-body", "the body must be {\"identity_token\": …, \"nonce\": …, \"time_zone\": …}")
        }
        let identity = try await apple.verify(body.identity_token, rawNonce: body.nonce)
        var signIn = AppleSignInRequest()
        signIn.appleSubject = identity.subject
        signIn.email = identity.email ?? ""
        signIn.timeZone = body.time_zone ?? ""
        let grant = try await call(signIn)
        return try await session(grant, status: grant.created ? .created : .ok)
    }

    func signOut(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let body = try await ProtoJSON.decode(SignOutRequest.self, from: request, context: context)
        guard !body.refreshToken.isEmpty else { throw Problem.badRequest("invalid-body", "refresh_token: is required", field: "refresh_token") }
        _ = try await call(body)
        return Response(status: .noContent)
    }

    /// The per-address bucket of the sign-in operations.
    private func limitSignIn(_ context: GatewayRequestContext) throws {
        let decision = signInLimiter.spend(1, for: context.clientAddress)
        guard decision.allowed else {
            metrics.rateLimited("sign-in")
            throw Problem.rateLimited(decision, "too many sign-in attempts from this address; retry after \(decision.retryAfterSeconds) s")
        }
    }

    /// A session's JSON: a new access token, the grant's refresh token, the user and entitlements.
    private func session(_ grant: SessionGrant, status: HTTPResponse.Status) async throws -> Response {
        // Whole seconds, as the token carries them: the hour ends when the token says it does.
        let issued = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let claims = AccessClaims(
            sub: .init(value: grant.user.userID), sid: grant.familyID, iss: .init(value: settings.issuer), aud: .init(value: [settings.audience]),
            iat: .init(value: issued), exp: .init(value: issued.addingTimeInterval(TimeInterval(settings.accessTokenLifetime.components.seconds))))
        let accessToken = try await keys.sign(claims)
        let user = try ProtoJSONWithDefaults.fareLens.text(of: grant.user)
        let entitlements = try ProtoJSONWithDefaults.fareLens.text(of: grant.entitlements)
        let json = """
            {"access_token":\(Self.quoted(accessToken)),"token_type":"Bearer","expires_in":\(settings.accessTokenLifetime.components.seconds),\
            "refresh_token":\(Self.quoted(grant.refreshToken)),"refresh_expires_at_unix_ms":"\(grant.refreshExpiresAtUnixMs)",\
            "created":\(grant.created),"user":\(user),"entitlements":\(entitlements)}
            """
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    private static func quoted(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }
}
