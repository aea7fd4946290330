import Crypto
import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

/// Money in over HTTP (docs/payments.md): the App Store's notifications, the
/// app's restores, the affiliate network's postback — in one node and with
/// the gateway in its own node.
@Suite("Gateway: payments", .serialized)
struct GatewayPaymentsTests {
    static let bundleID = "com.farelens.app"
    static let day: Int64 = 86_400_000

    /// The App Store's keys for a sandbox that trusts `chain`'s root.
    static func appStoreSettings(_ chain: AppStoreTestChain) throws -> [String: String] {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-root-\(UUID().uuidString).cer")
        try Data(chain.rootDER).write(to: root)
        return ["appstore.bundleId": bundleID, "appstore.environment": "Sandbox", "appstore.rootCertificates": root.path]
    }

    static func transaction(_ id: String, token: String?, at: Int64, expires: Int64) -> AppStoreTestTransaction {
        AppStoreTestTransaction(
            transactionId: id, originalTransactionId: id, bundleId: bundleID, productId: "com.farelens.pro.monthly", purchaseDate: at, expiresDate: expires,
            appAccountToken: token, environment: "Sandbox", signedDate: at, price: 4_990, currency: "EUR")
    }

    static func notification(_ chain: AppStoreTestChain, _ type: String, uuid: String, at: Int64, transaction: AppStoreTestTransaction?, bundle: String = bundleID) async throws -> String {
        let data = AppStoreTestNotificationData(
            appAppleId: nil, bundleId: bundle, environment: "Sandbox", signedTransactionInfo: try await transaction.asyncMap { try await chain.sign($0) })
        return try await chain.sign(AppStoreTestNotification(notificationType: type, notificationUUID: uuid, signedDate: at, data: data))
    }

    static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test("a signed SUBSCRIBED makes the user Pro and is answered 200 once committed, the same again is a duplicate, and forged, foreign or malformed payloads are 403 or 400 with their codes", arguments: GatewayShape.allCases)
    func notifications(shape: GatewayShape) async throws {
        let chain = try AppStoreTestChain()
        try await GatewayHarness.with(shape, settings: try Self.appStoreSettings(chain)) { _, api in
            let ana = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let me = try await api.send(.GET, "/v1/me", token: ana)
            let accountToken = try #require((me.json["user"] as? [String: Any])?["app_account_token"] as? String, "\(me.text)")
            let t0 = Self.nowMs()
            let purchase = Self.transaction("g-1000", token: accountToken, at: t0, expires: t0 + 30 * Self.day)
            let signed = try await Self.notification(chain, "SUBSCRIBED", uuid: "n-g-1", at: t0, transaction: purchase)

            let forged = try await Self.notification(try AppStoreTestChain(), "SUBSCRIBED", uuid: "n-g-2", at: t0, transaction: purchase)
            let refused = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"signedPayload":"\#(forged)"}"#)
            #expect(refused.status == 403 && refused.code == "untrusted-signature", "\(refused.text)")
            let foreign = try await Self.notification(chain, "SUBSCRIBED", uuid: "n-g-3", at: t0, transaction: purchase, bundle: "com.other.app")
            let wrongApp = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"signedPayload":"\#(foreign)"}"#)
            #expect(wrongApp.status == 403 && wrongApp.code == "wrong-bundle-id", "\(wrongApp.text)")
            let malformed = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"signedPayload":"not-a-jws"}"#)
            #expect(malformed.status == 400 && malformed.code == "malformed-signed-payload", "\(malformed.text)")
            let noBody = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"payload":"x"}"#)
            #expect(noBody.status == 400 && noBody.code == "invalid-body")
            #expect(((try await api.send(.GET, "/v1/me", token: ana)).json["user"] as? [String: Any])?["tier"] as? String == "TRIAL")

            let applied = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"signedPayload":"\#(signed)"}"#)
            #expect(applied.status == 200 && applied.string("outcome") == "STORE_NOTIFICATION_OUTCOME_APPLIED", "\(applied.text)")
            let user = try #require((try await api.send(.GET, "/v1/me", token: ana)).json["user"] as? [String: Any])
            #expect(user["tier"] as? String == "PRO" && user["product"] as? String == "MONTHLY")
            let again = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"signedPayload":"\#(signed)"}"#)
            #expect(again.status == 200 && again.string("outcome") == "STORE_NOTIFICATION_OUTCOME_DUPLICATE", "\(again.text)")
        }
    }

    @Test("POST /v1/me/purchases restores the caller's own transaction; another user's is 409 app-account-token-mismatch and changes nothing; no session is 401", arguments: GatewayShape.allCases)
    func restore(shape: GatewayShape) async throws {
        let chain = try AppStoreTestChain()
        try await GatewayHarness.with(shape, settings: try Self.appStoreSettings(chain)) { _, api in
            let ana = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let bo = try #require(try await api.signUp("bo@example.com").string("access_token"))
            let anaToken = try #require(((try await api.send(.GET, "/v1/me", token: ana)).json["user"] as? [String: Any])?["app_account_token"] as? String)
            let t0 = Self.nowMs()
            let jws = try await chain.sign(Self.transaction("g-2000", token: anaToken, at: t0, expires: t0 + 30 * Self.day))

            let stolen = try await api.send(.POST, "/v1/me/purchases", token: bo, json: #"{"signedTransaction":"\#(jws)"}"#)
            #expect(stolen.status == 409 && stolen.code == "app-account-token-mismatch", "\(stolen.text)")
            #expect(((try await api.send(.GET, "/v1/me", token: bo)).json["user"] as? [String: Any])?["tier"] as? String == "TRIAL")
            #expect(try await api.send(.POST, "/v1/me/purchases", json: #"{"signedTransaction":"\#(jws)"}"#).status == 401)

            let restored = try await api.send(.POST, "/v1/me/purchases", token: ana, json: #"{"signedTransaction":"\#(jws)"}"#)
            #expect(restored.status == 200, "\(restored.text)")
            #expect((restored.json["user"] as? [String: Any])?["tier"] as? String == "PRO")
            #expect((restored.json["entitlements"] as? [String: Any])?["ads"] == nil || (restored.json["entitlements"] as? [String: Any])?["ads"] as? Bool == false)
        }
    }

    @Test("with no appstore.bundleId the App Store endpoints answer 503 appstore-not-configured")
    func notConfigured() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let answer = try await api.send(.POST, "/v1/appstore/notifications", json: #"{"signedPayload":"a.b.c"}"#)
            #expect(answer.status == 503 && answer.code == "appstore-not-configured", "\(answer.text)")
        }
    }

    static let secret = "postback-secret-0123456789"

    @Test("the affiliate postback: a wrong or missing secret is 401, the right one records the booking (matched to the click that carried its sub-id), the same action again is a duplicate, an unknown sub-id is recorded unmatched, bad amounts are 400 naming the field", arguments: GatewayShape.allCases)
    func postback(shape: GatewayShape) async throws {
        try await GatewayHarness.with(shape, settings: ["gateway.affiliate.postbackSecret": Self.secret]) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let search = try await api.send(.POST, "/v1/search", token: token, json: #"{"origin":"JFK","destination":"LAX","departure_date":{"year":2027,"month":1,"day":15},"adults":1}"#)
            let offer = try #require((search.json["offers"] as? [[String: Any]])?.first?["offer_id"] as? String, "\(search.text)")
            let options = try await api.send(.GET, "/v1/offers/\(offer)/booking-options?placement=dealcard", token: token)
            let affiliate = try #require((options.json["options"] as? [[String: Any]])?.first { ($0["sub_id"] as? String)?.isEmpty == false }, "\(options.text)")
            let subID = try #require(affiliate["sub_id"] as? String)
            #expect(try await api.send(.GET, try #require(affiliate["click_url"] as? String)).status == 302)
            let encoded = try #require(subID.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let query = "/v1/affiliate/postback?action_id=act-1&sub_id=\(encoded)&status=confirmed&commission=12.50&currency=USD&booking_value=250&booked_at=2027-01-02T10:00:00Z&provider=travelpayouts"

            let missing = try await api.send(.GET, query)
            #expect(missing.status == 401 && missing.code == "invalid-postback-secret")
            let wrong = try await api.send(.GET, query, headers: [("X-Postback-Secret", "postback-secret-0123456788")])
            #expect(wrong.status == 401 && wrong.code == "invalid-postback-secret")
            #expect(!wrong.text.contains("0123456788") && !wrong.text.contains(Self.secret), "a secret is never echoed")

            let booked = try await api.send(.GET, query, headers: [("X-Postback-Secret", Self.secret)])
            #expect(booked.status == 200 && booked.json["matched"] as? Bool == true, "\(booked.text)")
            let again = try await api.send(.POST, query + "&secret=\(Self.secret)")
            #expect(again.status == 200 && again.json["duplicate"] as? Bool == true, "\(again.text)")

            let stranger = try await api.send(.GET, "/v1/affiliate/postback?action_id=act-2&sub_id=from-elsewhere&commission=3&currency=EUR", headers: [("X-Postback-Secret", Self.secret)])
            #expect(stranger.status == 200 && stranger.json["matched"] as? Bool != true, "an unknown sub-id is recorded, not refused: \(stranger.text)")
            let tooPrecise = try await api.send(.GET, "/v1/affiliate/postback?action_id=act-3&sub_id=x&commission=1.234&currency=USD", headers: [("X-Postback-Secret", Self.secret)])
            #expect(tooPrecise.status == 400 && tooPrecise.string("field") == "commission")
            let noCurrency = try await api.send(.GET, "/v1/affiliate/postback?action_id=act-3&sub_id=x&commission=1", headers: [("X-Postback-Secret", Self.secret)])
            #expect(noCurrency.status == 400 && noCurrency.string("field") == "currency")
            let noAction = try await api.send(.GET, "/v1/affiliate/postback?sub_id=x", headers: [("X-Postback-Secret", Self.secret)])
            #expect(noAction.status == 400 && noAction.string("field") == "action_id")
        }
    }

    @Test("a signing network: the HMAC-SHA256 of the raw query string is required and checked; without any postback key the endpoint is 503")
    func signedPostback() async throws {
        let key = "hmac-signing-key-0123456789"
        try await GatewayHarness.with(.oneProcess, settings: ["gateway.affiliate.signingKey": key]) { _, api in
            let query = "action_id=act-9&sub_id=unknown&status=pending&commission=5.00&currency=GBP"
            let mac = HMAC<SHA256>.authenticationCode(for: Data(query.utf8), using: SymmetricKey(data: Data(key.utf8))).map { String(format: "%02x", $0) }.joined()
            let unsigned = try await api.send(.GET, "/v1/affiliate/postback?" + query)
            #expect(unsigned.status == 401 && unsigned.code == "invalid-postback-signature")
            let altered = try await api.send(.GET, "/v1/affiliate/postback?" + query.replacingOccurrences(of: "5.00", with: "50.00"), headers: [("X-Postback-Signature", "sha256=" + mac)])
            #expect(altered.status == 401 && altered.code == "invalid-postback-signature")
            let signed = try await api.send(.GET, "/v1/affiliate/postback?" + query, headers: [("X-Postback-Signature", "sha256=" + mac)])
            #expect(signed.status == 200, "\(signed.text)")
        }
        try await GatewayHarness.with(.oneProcess) { _, api in
            let answer = try await api.send(.GET, "/v1/affiliate/postback?action_id=a&sub_id=b")
            #expect(answer.status == 503 && answer.code == "postback-not-configured")
        }
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
