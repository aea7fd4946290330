import Crypto
import FareLensMessages
import Foundation
import HTTPTypes
import Hummingbird

/// An affiliate network's postback (docs/payments.md, "Affiliate
/// commission postback"): a booking made through a FareLens link, read from
/// the query string (networks call a URL template, by GET or POST) into the
/// analytics service's `CommissionNotification`.
///
/// | parameter | meaning |
/// |---|---|
/// | `action_id` | the network's id of the booking action: the idempotency key (required) |
/// | `sub_id` | the click's sub-id, as the booking link carried it (required; an unknown one is recorded) |
/// | `status` | `pending`, `confirmed` (default) or `cancelled` |
/// | `commission`, `currency` | the commission as a decimal amount (`12.50`) and its ISO 4217 code |
/// | `booking_value`, `booking_currency` | the booking's value; its currency defaults to `currency` |
/// | `booked_at` | Unix seconds or ISO 8601 |
/// | `provider` | the network or merchant (default `affiliate`) |
struct AffiliatePostback {
    let message: CommissionNotificationRequest

    init(_ query: [String: String]) throws(Problem) {
        func text(_ name: String) -> String? {
            guard let value = query[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        var message = CommissionNotificationRequest()
        guard let action = text("action_id") else { throw .badRequest("invalid-query", "action_id: the network's id of the booking is required", field: "action_id") }
        guard let subID = text("sub_id") else { throw .badRequest("invalid-query", "sub_id: the click's sub-id is required", field: "sub_id") }
        message.notificationID = action
        message.subID = subID
        message.provider = text("provider") ?? "affiliate"
        switch text("status")?.lowercased() ?? "confirmed" {
        case "pending": message.status = .pending
        case "confirmed": message.status = .confirmed
        case "cancelled", "canceled": message.status = .cancelled
        case let other: throw .badRequest("invalid-query", "status: '\(other)' is not pending, confirmed or cancelled", field: "status")
        }
        let currency = text("currency")?.uppercased()
        if let amount = text("commission") {
            message.commission = try Self.money(amount, currency: currency, field: "commission", currencyField: "currency")
        }
        if let amount = text("booking_value") {
            message.bookingValue = try Self.money(amount, currency: text("booking_currency")?.uppercased() ?? currency, field: "booking_value", currencyField: "booking_currency")
        }
        if let booked = text("booked_at") {
            if let seconds = Int64(booked), seconds >= 0, seconds < 32_503_680_000 {
                message.bookedAtUnixMs = seconds * 1000
            } else if let date = try? Date(booked, strategy: .iso8601) {
                message.bookedAtUnixMs = Int64((date.timeIntervalSince1970 * 1000).rounded())
            } else {
                throw .badRequest("invalid-query", "booked_at: '\(booked)' is neither Unix seconds nor ISO 8601", field: "booked_at")
            }
        }
        self.message = message
    }

    /// `12.50` in `EUR` → 1250 minor units; more fraction digits than the currency has is refused, not rounded.
    static func money(_ amount: String, currency: String?, field: String, currencyField: String) throws(Problem) -> Money {
        guard let currency, Money.isCurrencyCode(currency) else {
            throw .badRequest("invalid-query", "\(currencyField): an ISO 4217 currency code is required with \(field)", field: currencyField)
        }
        guard let money = Money(decimal: amount, currency: currency) else {
            throw .badRequest("invalid-query", "\(field): '\(amount)' is not an amount in \(currency) (at most \(Money.exponent(of: currency)) decimals)", field: field)
        }
        return money
    }
}

/// Who may post back: the network, proven by the shared secret
/// (`gateway.affiliate.postbackSecret`, in the `X-Postback-Secret` header or
/// the `secret` parameter) and, when the network signs,
/// `gateway.affiliate.signingKey`'s HMAC-SHA256 of the raw query string in
/// `X-Postback-Signature: sha256=<hex>`. Each configured one is required;
/// both are compared in constant time (swift-crypto).
struct AffiliatePostbackCheck {
    let secret: String?
    let signingKey: String?

    static let secretHeader = HTTPField.Name("X-Postback-Secret")!
    static let signatureHeader = HTTPField.Name("X-Postback-Signature")!

    func check(_ request: Request) throws(Problem) {
        guard secret != nil || signingKey != nil else {
            throw Problem.unavailable("the affiliate postback is not configured (gateway.affiliate.postbackSecret)", code: "postback-not-configured", retryAfterSeconds: 3600)
        }
        if let secret {
            let given = request.headers[Self.secretHeader] ?? request.uri.queryParameters.get("secret").map { String($0) } ?? ""
            // Equal digests, compared by swift-crypto in constant time, mean equal secrets.
            guard SHA256.hash(data: Data(given.utf8)) == SHA256.hash(data: Data(secret.utf8)) else {
                throw Problem(.unauthorized, code: "invalid-postback-secret", "the postback's secret is missing or wrong")
            }
        }
        if let signingKey {
            let header = request.headers[Self.signatureHeader] ?? ""
            guard header.hasPrefix("sha256="), let mac = Self.bytes(hex: header.dropFirst("sha256=".count)),
                HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data((request.uri.query ?? "").utf8), using: SymmetricKey(data: Data(signingKey.utf8)))
            else {
                throw Problem(.unauthorized, code: "invalid-postback-signature", "X-Postback-Signature: not the HMAC-SHA256 (sha256=<hex>) of the query string")
            }
        }
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        guard hex.count == 64 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
