/// The App Store's payloads as a test writes them (Apple's field names;
/// a nil field is left out), signed with ``AppStoreTestChain``.
///
/// `ResponseBodyV2DecodedPayload`.
public struct AppStoreTestNotification: Encodable, Sendable {
    public var notificationType: String
    public var subtype: String?
    public var notificationUUID: String
    public var version = "2.0"
    public var signedDate: Int64
    public var data: AppStoreTestNotificationData?

    public init(notificationType: String, subtype: String? = nil, notificationUUID: String, signedDate: Int64, data: AppStoreTestNotificationData?) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.signedDate = signedDate
        self.data = data
    }
}

/// A notification's `data`.
public struct AppStoreTestNotificationData: Encodable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
    public var status: Int?

    public init(appAppleId: Int64?, bundleId: String?, environment: String?, signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil, status: Int? = nil) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.environment = environment
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
    }
}

/// `JWSTransactionDecodedPayload`.
public struct AppStoreTestTransaction: Encodable, Sendable {
    public var transactionId: String
    public var originalTransactionId: String
    public var bundleId: String
    public var productId: String
    public var purchaseDate: Int64
    public var expiresDate: Int64
    public var appAccountToken: String?
    public var environment: String
    public var signedDate: Int64
    public var revocationDate: Int64?
    public var type = "Auto-Renewable Subscription"
    public var transactionReason: String
    public var price: Int64?
    public var currency: String?

    public init(
        transactionId: String, originalTransactionId: String, bundleId: String, productId: String, purchaseDate: Int64, expiresDate: Int64,
        appAccountToken: String?, environment: String, signedDate: Int64, price: Int64? = nil, currency: String? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.bundleId = bundleId
        self.productId = productId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.appAccountToken = appAccountToken
        self.environment = environment
        self.signedDate = signedDate
        self.transactionReason = transactionId == originalTransactionId ? "PURCHASE" : "RENEWAL"
        self.price = price
        self.currency = currency
    }
}

/// `JWSRenewalInfoDecodedPayload`.
public struct AppStoreTestRenewalInfo: Encodable, Sendable {
    public var originalTransactionId: String
    public var productId: String
    public var autoRenewProductId: String
    public var autoRenewStatus: Int
    public var isInBillingRetryPeriod: Bool
    public var gracePeriodExpiresDate: Int64?
    public var environment: String
    public var signedDate: Int64

    public init(originalTransactionId: String, productId: String, autoRenewStatus: Int, isInBillingRetryPeriod: Bool, gracePeriodExpiresDate: Int64?, environment: String, signedDate: Int64) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = productId
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.environment = environment
        self.signedDate = signedDate
    }
}
