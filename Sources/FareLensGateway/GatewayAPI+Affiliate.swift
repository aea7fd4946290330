import FareLensMessages
import Hummingbird

extension GatewayAPI {
    /// `GET` or `POST /v1/affiliate/postback?action_id=…&sub_id=…`: a
    /// booking confirmed (or changed) by the affiliate network
    /// (``AffiliatePostback``), checked by ``AffiliatePostbackCheck`` and
    /// reconciled by analytics. Idempotent by `action_id`; an unknown sub-id
    /// is recorded (`matched: false`), not dropped.
    func affiliatePostback(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try AffiliatePostbackCheck(secret: settings.affiliatePostbackSecret, signingKey: settings.affiliateSigningKey).check(request)
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value) }
        let postback = try AffiliatePostback(query)
        return try ProtoJSON.response(try await call(postback.message), to: request)
    }
}
