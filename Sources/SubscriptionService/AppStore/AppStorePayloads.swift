import JWTKit

/// The payloads the App Store signs, as Apple documents them (fields this
/// product does not read are left out; unknown fields are ignored). Dates are
/// Unix epoch milliseconds, as Apple sends them. Their times are checked by
/// ``AppStoreVerifier`` (the certificates at `signedDate`), not by jwt-kit's
/// claim checks: these payloads have no `exp`.
///
/// `ResponseBodyV2DecodedPayload`: one App Store Server Notification V2.
struct NotificationPayload: JWTPayload {
    var notificationType: String
    var subtype: String?
    var notificationUUID: String
    var data: NotificationData?
    var version: String?
    var signedDate: Int64

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A notification's `data`: the app it is about and its nested signed payloads.
struct NotificationData: Codable, Sendable {
    var appAppleId: Int64?
    var bundleId: String?
    var bundleVersion: String?
    var environment: String?
    var signedTransactionInfo: String?
    var signedRenewalInfo: String?
    /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    var status: Int?
}

/// `JWSTransactionDecodedPayload`: one transaction (StoreKit 2's
/// `jwsRepresentation`, a notification's `signedTransactionInfo`).
struct TransactionPayload: JWTPayload {
    var transactionId: String
    var originalTransactionId: String
    var bundleId: String
    var productId: String
    var purchaseDate: Int64?
    var expiresDate: Int64?
    /// The UUID the app set at purchase: the user's (``UserRecord/appAccountToken``).
    var appAccountToken: String?
    var environment: String?
    var signedDate: Int64
    var revocationDate: Int64?
    var revocationReason: Int?
    var type: String?
    /// `PURCHASE` or `RENEWAL`.
    var transactionReason: String?
    /// What was paid, in thousandths of the currency's unit (Apple's "milliunits").
    var price: Int64?
    var currency: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// `JWSRenewalInfoDecodedPayload`: the subscription's renewal state.
struct RenewalInfoPayload: JWTPayload {
    var originalTransactionId: String?
    var productId: String?
    var autoRenewProductId: String?
    /// 1 on, 0 off.
    var autoRenewStatus: Int?
    var isInBillingRetryPeriod: Bool?
    var gracePeriodExpiresDate: Int64?
    var environment: String?
    var signedDate: Int64

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Any signed payload: only its `signedDate`, read (unverified) to know the
/// time at which its certificates must be valid.
struct SignedDatePayload: JWTPayload {
    var signedDate: Int64

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A notification with everything nested in it verified and decoded.
struct VerifiedNotification: Sendable {
    var payload: NotificationPayload
    var transaction: TransactionPayload?
    var renewal: RenewalInfoPayload?
}
