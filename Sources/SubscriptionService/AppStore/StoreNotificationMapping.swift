import FareLensMessages

/// What a verified App Store notification asks of a user's subscription
/// (docs/payments.md, the table): pure, so every row is tested without a
/// database. The user is found afterwards (``SubscriptionService``), by the
/// transaction's `appAccountToken`, else by its subscription's earlier
/// transactions.
///
/// | notification (subtype) | applied as |
/// |---|---|
/// | SUBSCRIBED (INITIAL_BUY, RESUBSCRIBE) | START: Pro until `expiresDate` |
/// | DID_RENEW | RENEW: Pro until the new `expiresDate` |
/// | DID_FAIL_TO_RENEW (GRACE_PERIOD) | BILLING_RETRY: access until `gracePeriodExpiresDate` |
/// | DID_FAIL_TO_RENEW (none) | EXPIRE: Free until a later DID_RENEW recovers it |
/// | GRACE_PERIOD_EXPIRED, EXPIRED | EXPIRE |
/// | DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_DISABLED) | CANCEL: Pro to the period's end |
/// | DID_CHANGE_RENEWAL_STATUS (AUTO_RENEW_ENABLED) | RESUME |
/// | REFUND | REFUND: Free at once |
/// | REVOKE | REVOKE: Free at once |
/// | TEST and every other type | recorded only |
enum StoreNotificationMapping {
    /// What to do with one notification.
    enum Action: Equatable {
        /// Apply this purchase notification (its `user_id` still empty).
        case apply(ApplyPurchaseNotificationRequest)
        /// Record only, with why.
        case record(String)
    }

    /// The action for `notification`, given the products sold here.
    static func action(for notification: VerifiedNotification, products: [String: SubscriptionProduct]) -> Action {
        let payload = notification.payload
        let type = payload.notificationType
        let subtype = payload.subtype ?? ""
        let kind: PurchaseKind
        switch (type, subtype) {
        case ("TEST", _): return .record("a test notification (App Store Connect's \"Request a Test Notification\")")
        case ("SUBSCRIBED", _): kind = .start
        case ("DID_RENEW", _): kind = .renew
        case ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"): kind = .billingRetry
        case ("DID_FAIL_TO_RENEW", _), ("GRACE_PERIOD_EXPIRED", _), ("EXPIRED", _): kind = .expire
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"): kind = .cancel
        case ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED"): kind = .resume
        case ("REFUND", _): kind = .refund
        case ("REVOKE", _): kind = .revoke
        default:
            return .record("\(type)\(subtype.isEmpty ? "" : " (\(subtype))") is recorded; the product does not act on it")
        }
        guard let transaction = notification.transaction else { return .record("\(type) carries no signedTransactionInfo") }
        guard let product = products[transaction.productId] else {
            return .record("product '\(transaction.productId)' is not a subscription this server sells")
        }
        var request = ApplyPurchaseNotificationRequest()
        request.notificationID = payload.notificationUUID
        request.transactionID = transaction.transactionId
        request.originalTransactionID = transaction.originalTransactionId
        request.kind = kind
        request.product = product
        request.occurredAtUnixMs = payload.signedDate
        request.expiresAtUnixMs = transaction.expiresDate ?? 0
        if kind == .billingRetry { request.gracePeriodEndsAtUnixMs = notification.renewal?.gracePeriodExpiresDate ?? 0 }
        if [.start, .renew, .refund].contains(kind), let price = Self.price(transaction) { request.price = price }
        return .apply(request)
    }

    /// The transaction's price in minor units: Apple's are thousandths of the
    /// currency's unit, so 9990 USD milliunits is 999 cents and 1200000 JPY is 1200 yen.
    static func price(_ transaction: TransactionPayload) -> Money? {
        guard let milli = transaction.price, milli >= 0, let currency = transaction.currency, Money.isCurrencyCode(currency) else { return nil }
        let exponent = Money.exponent(of: currency)
        var money = Money()
        money.currency = currency
        var divisor: Int64 = 1
        for _ in 0..<max(0, 3 - exponent) { divisor *= 10 }
        money.minorUnits = milli / divisor
        return money
    }

    /// The purchase a StoreKit 2 transaction stands for when the app restores
    /// it: its first transaction STARTs the subscription, a renewal's RENEWs it.
    static func restore(_ transaction: TransactionPayload, product: SubscriptionProduct, userID: String) -> ApplyPurchaseNotificationRequest {
        var request = ApplyPurchaseNotificationRequest()
        request.userID = userID
        request.transactionID = transaction.transactionId
        request.originalTransactionID = transaction.originalTransactionId
        request.kind = transaction.transactionId == transaction.originalTransactionId ? .start : .renew
        request.product = product
        request.occurredAtUnixMs = transaction.signedDate
        request.expiresAtUnixMs = transaction.expiresDate ?? 0
        if let price = price(transaction) { request.price = price }
        return request
    }
}
