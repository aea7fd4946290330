import FareLensMessages

/// What one purchase notification does to a user (SPEC §4, modelled on App
/// Store Server Notifications V2): pure, so every rule is tested without a
/// database. The caller has already decided the notification is neither a
/// duplicate nor stale.
///
/// | kind | tier | paid period | auto-renew | grace |
/// |---|---|---|---|---|
/// | START | Pro | until `expires_at` | on | cleared |
/// | RENEW | Pro | until `expires_at` | on | cleared |
/// | CANCEL | unchanged (Pro until the period ends, see `endPaidPeriods`) | kept | off | kept |
/// | EXPIRE | Free | kept | off | cleared |
/// | REFUND | Free at once | kept | off | cleared |
/// | BILLING_RETRY | unchanged (access kept) | kept | kept | until `grace_period_ends_at` |
/// | RESUME | unchanged | kept | on (a Pro user only) | kept |
/// | REVOKE | Free at once | kept | off | cleared |
///
/// EXPIRE, REFUND and REVOKE move only a Pro user: a trial or Free user stays as they are.
enum PurchaseTransition {
    /// Checks a notification's fields; each failure names its field.
    static func validate(_ request: ApplyPurchaseNotificationRequest) throws(SubscriptionError) {
        guard !request.transactionID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidField("transaction_id", "is required") }
        guard !request.userID.isEmpty else { throw .invalidField("user_id", "is required") }
        switch request.kind {
        case .start, .renew, .cancel, .expire, .refund, .billingRetry, .resume, .revoke: break
        default: throw .invalidField("kind", "\(request.kind) is not a purchase notification kind")
        }
        guard request.occurredAtUnixMs > 0 else { throw .invalidField("occurred_at_unix_ms", "is required") }
        if request.kind == .start || request.kind == .renew {
            guard request.product == .monthly || request.product == .annual else { throw .invalidField("product", "START and RENEW need MONTHLY or ANNUAL") }
            guard request.expiresAtUnixMs > request.occurredAtUnixMs else {
                throw .invalidField("expires_at_unix_ms", "must be after occurred_at_unix_ms for \(request.kind)")
            }
        }
        if request.kind == .billingRetry, request.gracePeriodEndsAtUnixMs <= request.occurredAtUnixMs {
            throw .invalidField("grace_period_ends_at_unix_ms", "must be after occurred_at_unix_ms for BILLING_RETRY")
        }
        if request.hasPrice {
            guard request.price.currency.count == 3, request.price.currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw .invalidField("price.currency", "'\(request.price.currency)' is not an ISO 4217 code")
            }
            guard request.price.minorUnits >= 0 else { throw .invalidField("price.minor_units", "must not be negative") }
        }
    }

    /// The user after `request`, and the cause to publish if the tier changed.
    static func apply(_ request: ApplyPurchaseNotificationRequest, to user: UserRecord) -> (UserRecord, TierChangeCause?) {
        var next = user
        let before = user.tierValue
        next.lastNotificationAtUnixMs = max(user.lastNotificationAtUnixMs, request.occurredAtUnixMs)
        switch request.kind {
        case .start, .renew:
            next.tier = Tier.pro.rawValue
            next.product = request.product.rawValue
            next.paidUntilUnixMs = request.expiresAtUnixMs
            next.autoRenew = true
            next.graceUntilUnixMs = 0
            next.trialStage = .over
            next.setByOperator = false
        case .cancel:
            next.autoRenew = false
        case .resume:
            if before == .pro { next.autoRenew = true }
        case .expire, .refund, .revoke:
            next.autoRenew = false
            next.graceUntilUnixMs = 0
            if before == .pro {
                next.tier = Tier.free.rawValue
                next.setByOperator = false
            }
        case .billingRetry:
            next.graceUntilUnixMs = request.gracePeriodEndsAtUnixMs
        default:
            break
        }
        guard next.tierValue != before else { return (next, nil) }
        let cause: TierChangeCause = switch request.kind {
        case .start: .purchaseStarted
        case .renew: .purchaseRenewed
        case .refund: .purchaseRefunded
        case .revoke: .purchaseRevoked
        default: .purchaseExpired
        }
        return (next, cause)
    }
}
