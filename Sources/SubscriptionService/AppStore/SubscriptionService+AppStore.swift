import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension SubscriptionService {
    /// One App Store Server Notification V2 (docs/payments.md): verified off
    /// the actor (``AppStoreVerifier``), then applied and recorded in one
    /// transaction, so the answer (and the gateway's 200) comes only after
    /// the commit, and a crash before it leaves nothing for the App Store's
    /// retry to find. Idempotent by `notificationUUID`.
    ///
    /// - Throws: the verifier's codes (`malformed-signed-payload`,
    ///   `untrusted-signature`, `wrong-bundle-id`, `wrong-environment`,
    ///   `wrong-app-apple-id`); `appstore-not-configured`; `storage`. A
    ///   verified notification is never refused: one this server cannot
    ///   apply (no user, a product not sold here, a type not acted on) is
    ///   recorded and answered, since a retry would not change it.
    nonisolated func receiveAppStoreNotification(
        _ request: AppStoreNotificationRequest, context: RequestContext?
    ) async throws(SubscriptionError) -> AppStoreNotificationResponse {
        guard let appStore else { throw .appStoreNotConfigured }
        guard !request.signedPayload.isEmpty else { throw .invalidField("signed_payload", "is required") }
        let notification = try await appStore.notification(request.signedPayload)
        return try await record(notification, products: appStore.settings.products, context: context)
    }

    private func record(
        _ notification: VerifiedNotification, products: [String: SubscriptionProduct], context: RequestContext?
    ) throws(SubscriptionError) -> AppStoreNotificationResponse {
        let now = clock.now()
        let action = StoreNotificationMapping.action(for: notification, products: products)
        let response = try write { db throws(SubscriptionError) -> AppStoreNotificationResponse in
            let uuid = notification.payload.notificationUUID
            if let seen = try Self.catching({ try StoreNotificationRecord.fetchOne(db, key: uuid) }) {
                return seen.response(outcome: .duplicate)
            }
            var record = StoreNotificationRecord(notification, receivedAt: Self.unixMs(now))
            switch action {
            case .record(let why):
                record.outcome = StoreNotificationOutcome.recorded.rawValue
                record.detail = why
            case .apply(var purchase):
                guard let transaction = notification.transaction, let userID = try Self.owner(of: transaction, in: db) else {
                    record.outcome = StoreNotificationOutcome.unmatched.rawValue
                    record.detail = "no user has this appAccountToken and no earlier transaction of subscription '\(purchase.originalTransactionID)' is known"
                    break
                }
                purchase.userID = userID
                record.userID = userID
                do throws(SubscriptionError) {
                    try PurchaseTransition.validate(purchase)
                } catch {
                    record.outcome = StoreNotificationOutcome.recorded.rawValue
                    record.detail = "not applied: \(error.message)"
                    break
                }
                let applied = try self.applyPurchase(purchase, at: now, context: context, in: db)
                record.kind = purchase.kind.rawValue
                record.outcome = (applied.duplicate ? StoreNotificationOutcome.duplicate : applied.stale ? .stale : .applied).rawValue
                record.detail = applied.duplicate ? "this transaction was applied as \(purchase.kind) before" : applied.stale ? "signed before the latest notification applied for this user" : ""
            }
            try Self.catching { try record.insert(db) }
            return record.response(outcome: record.outcomeValue)
        }
        logger.info("App Store notification", metadata: [
            "type": "\(response.notificationType)", "subtype": "\(response.subtype)", "uuid": "\(response.notificationUuid)", "outcome": "\(response.outcome)",
        ])
        return response
    }

    /// The user a transaction belongs to: by the `appAccountToken` the app
    /// set at purchase, else by an earlier transaction of the same
    /// subscription in the ledger (a purchase made before the app set one).
    nonisolated static func owner(of transaction: TransactionPayload, in db: Database) throws(SubscriptionError) -> String? {
        try catching {
            if let token = transaction.appAccountToken?.lowercased(), !token.isEmpty,
                let user = try UserRecord.filter(Column("appAccountToken") == token).fetchOne(db)
            {
                return user.userID
            }
            return try String.fetchOne(
                db, sql: "SELECT userID FROM purchase WHERE originalTransactionID = ? ORDER BY sequence LIMIT 1", arguments: [transaction.originalTransactionId])
        }
    }

    /// "Restore Purchase" or a purchase just made: a StoreKit 2 signed
    /// transaction, verified like a notification, applied for `user_id` only
    /// if its `appAccountToken` is that user's and its subscription is not
    /// another user's. Answers the user's entitlements after it.
    ///
    /// - Throws: the verifier's codes, `app-account-token-mismatch`,
    ///   `invalid-field` (`signed_transaction`: missing, or a product not sold
    ///   here), `unknown-user`, `appstore-not-configured`, `storage`.
    nonisolated func restorePurchase(_ request: RestorePurchaseRequest, context: RequestContext?) async throws(SubscriptionError) -> RestorePurchaseResponse {
        guard let appStore else { throw .appStoreNotConfigured }
        guard !request.signedTransaction.isEmpty else { throw .invalidField("signed_transaction", "is required") }
        guard !request.userID.isEmpty else { throw .invalidField("user_id", "is required") }
        let transaction = try await appStore.transaction(request.signedTransaction, field: "signed_transaction")
        guard let product = appStore.settings.products[transaction.productId] else {
            throw .invalidField("signed_transaction", "product '\(transaction.productId)' is not a subscription this server sells")
        }
        return try await restore(transaction, product: product, userID: request.userID, context: context)
    }

    private func restore(
        _ transaction: TransactionPayload, product: SubscriptionProduct, userID: String, context: RequestContext?
    ) throws(SubscriptionError) -> RestorePurchaseResponse {
        let now = clock.now()
        let purchase = StoreNotificationMapping.restore(transaction, product: product, userID: userID)
        let inactive = transaction.revocationDate != nil || purchase.expiresAtUnixMs <= purchase.occurredAtUnixMs
        let outcome = try write { db throws(SubscriptionError) -> (UserRecord, AppliedPurchase?) in
            guard let user = try Self.catching({ try UserRecord.fetchOne(db, key: userID) }) else { throw .unknownUser(userID) }
            guard let token = transaction.appAccountToken?.lowercased(), !token.isEmpty else {
                throw .appAccountTokenMismatch("the transaction carries no appAccountToken; the app sets the one GET /v1/me answers when it buys")
            }
            guard token == user.appAccountToken else { throw .appAccountTokenMismatch("the transaction was bought by another account") }
            let others = try Self.catching {
                try PurchaseRecord.filter(Column("originalTransactionID") == transaction.originalTransactionId && Column("userID") != userID).fetchCount(db)
            }
            guard others == 0 else { throw .appAccountTokenMismatch("the subscription belongs to another account") }
            if inactive { return (user, nil) }
            let applied = try self.applyPurchase(purchase, at: now, context: context, in: db)
            return (applied.user, applied)
        }
        if let applied = outcome.1, !applied.duplicate {
            logger.info("purchase restored", metadata: ["user": "\(userID)", "transaction": "\(transaction.transactionId)", "stale": "\(applied.stale)"])
        }
        var response = RestorePurchaseResponse()
        response.user = outcome.0.message
        response.entitlements = TierEntitlements.of(outcome.0.tierValue)
        response.duplicate = outcome.1?.duplicate ?? false
        response.stale = outcome.1?.stale ?? false
        response.inactive = inactive
        response.transactionID = transaction.transactionId
        response.kind = inactive ? .unspecified : purchase.kind
        return response
    }

    /// The notifications received most recently, newest first (`farelensctl appstore notifications`).
    nonisolated func recentStoreNotifications(_ request: RecentStoreNotificationsRequest) throws(SubscriptionError) -> RecentStoreNotificationsResponse {
        guard (0...500).contains(request.limit) else { throw .invalidField("limit", "must be from 1 to 500 (0: 20)") }
        let limit = request.limit == 0 ? 20 : Int(request.limit)
        let records: [StoreNotificationRecord]
        do {
            records = try database.writer.read { db in
                try StoreNotificationRecord.order(Column("receivedAtUnixMs").desc, Column.rowID.desc).limit(limit).fetchAll(db)
            }
        } catch {
            throw .storage(error)
        }
        var response = RecentStoreNotificationsResponse()
        response.notifications = records.map(\.message)
        return response
    }
}
