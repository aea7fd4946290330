import FareLensMessages
import FareLensTesting
import Foundation
@testable import SubscriptionService

/// A subscription service that trusts a test chain's root, and the App
/// Store's payloads made for it (``AppStoreTestChain``).
struct AppStoreHarness {
    static let bundleID = "com.farelens.app"
    static let appAppleID: Int64 = 1_234_567_890
    static let monthly = "com.farelens.pro.monthly"
    static let annual = "com.farelens.pro.annual"
    /// One day in milliseconds.
    static let day: Int64 = 86_400_000

    let chain: AppStoreTestChain
    let fixture: SubscriptionFixture
    let environment: AppStoreSettings.Environment

    /// A harness whose service trusts `chain`'s root (a new chain when nil).
    init(chain: AppStoreTestChain? = nil, environment: AppStoreSettings.Environment = .production) throws {
        let chain = try chain ?? AppStoreTestChain()
        self.chain = chain
        self.environment = environment
        let settings = AppStoreSettings(
            roots: [try .init(derEncoded: chain.rootDER)], bundleID: Self.bundleID, environment: environment,
            appAppleID: environment == .production ? Self.appAppleID : nil)
        fixture = try SubscriptionFixture(appStore: try AppStoreVerifier(settings: settings))
    }

    var service: SubscriptionService { fixture.service }
    func nowMs() -> Int64 { fixture.nowMs() }

    /// A new user; its appAccountToken is in `user.appAccountToken`.
    func user(_ email: String = "ana@example.com") async throws -> User {
        try await service.createUser(SubscriptionFixture.create(email)).user
    }

    func transaction(
        _ id: String, original: String? = nil, token: String?, signedAt: Int64, expires: Int64, product: String = AppStoreHarness.monthly,
        bundle: String = AppStoreHarness.bundleID, environment: String? = nil
    ) -> AppStoreTestTransaction {
        AppStoreTestTransaction(
            transactionId: id, originalTransactionId: original ?? id, bundleId: bundle, productId: product, purchaseDate: signedAt, expiresDate: expires,
            appAccountToken: token, environment: environment ?? self.environment.rawValue, signedDate: signedAt, price: 9_990, currency: "USD")
    }

    /// A signed notification about `transaction` (and its renewal info, when given).
    func notification(
        _ type: String, _ subtype: String? = nil, uuid: String = UUID().uuidString.lowercased(), signedAt: Int64,
        transaction: AppStoreTestTransaction?, renewal: AppStoreTestRenewalInfo? = nil, bundle: String = AppStoreHarness.bundleID,
        environment: String? = nil, appAppleID: Int64? = AppStoreHarness.appAppleID, chain: AppStoreTestChain? = nil
    ) async throws -> String {
        let chain = chain ?? self.chain
        var data = AppStoreTestNotificationData(appAppleId: appAppleID, bundleId: bundle, environment: environment ?? self.environment.rawValue)
        if let transaction { data.signedTransactionInfo = try await chain.sign(transaction) }
        if let renewal { data.signedRenewalInfo = try await chain.sign(renewal) }
        return try await chain.sign(AppStoreTestNotification(notificationType: type, subtype: subtype, notificationUUID: uuid, signedDate: signedAt, data: data))
    }

    func renewal(original: String, signedAt: Int64, grace: Int64?, autoRenew: Bool = true) -> AppStoreTestRenewalInfo {
        AppStoreTestRenewalInfo(
            originalTransactionId: original, productId: Self.monthly, autoRenewStatus: autoRenew ? 1 : 0, isInBillingRetryPeriod: grace != nil,
            gracePeriodExpiresDate: grace, environment: environment.rawValue, signedDate: signedAt)
    }

    /// Sends `signedPayload` as the gateway would.
    @discardableResult
    func send(_ signedPayload: String) async throws(SubscriptionError) -> AppStoreNotificationResponse {
        var request = AppStoreNotificationRequest()
        request.signedPayload = signedPayload
        return try await service.receiveAppStoreNotification(request, context: nil)
    }

    func restore(_ signedTransaction: String, for userID: String) async throws(SubscriptionError) -> RestorePurchaseResponse {
        var request = RestorePurchaseRequest()
        request.userID = userID
        request.signedTransaction = signedTransaction
        return try await service.restorePurchase(request, context: nil)
    }

    func stored(_ userID: String) async throws -> User {
        var request = GetUserRequest()
        request.userID = userID
        return try await service.user(request).user
    }

    func ledger(_ userID: String) async throws -> [PurchaseLedgerEntry] {
        var request = PurchaseHistoryRequest()
        request.userID = userID
        return try await service.purchaseHistory(request).entries
    }

    func recent(_ limit: Int32 = 0) throws -> [StoreNotification] {
        var request = RecentStoreNotificationsRequest()
        request.limit = limit
        return try service.recentStoreNotifications(request).notifications
    }
}
