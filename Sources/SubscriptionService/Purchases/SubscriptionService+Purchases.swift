import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension SubscriptionService {
    /// Applies a purchase notification (``PurchaseTransition``) and appends it
    /// to the user's ledger, in one transaction.
    ///
    /// - A notification whose id, or whose transaction id and kind, was seen
    ///   before changes nothing and answers `duplicate`.
    /// - One that occurred before the latest applied for this user is kept in
    ///   the ledger with `stale` and changes nothing: a late RENEW cannot undo
    ///   a REFUND that came first.
    /// - Otherwise the user changes; `PurchaseRecorded` is published, and
    ///   `TierChanged` (with the transaction id) when the tier moved.
    func applyPurchase(_ request: ApplyPurchaseNotificationRequest, context: RequestContext? = nil) throws(SubscriptionError) -> ApplyPurchaseNotificationResponse {
        try PurchaseTransition.validate(request)
        let now = clock.now()
        let outcome = try write { db throws(SubscriptionError) in try self.applyPurchase(request, at: now, context: context, in: db) }
        if !outcome.duplicate {
            logger.info("purchase notification applied", metadata: [
                "user": "\(request.userID)", "kind": "\(request.kind)", "transaction": "\(request.transactionID)", "stale": "\(outcome.stale)",
            ])
        }
        var response = ApplyPurchaseNotificationResponse()
        response.duplicate = outcome.duplicate
        response.stale = outcome.stale
        response.user = outcome.user.message
        return response
    }

    /// What applying one notification did.
    struct AppliedPurchase: Sendable {
        /// The user after it.
        var user: UserRecord
        var cause: TierChangeCause?
        var duplicate: Bool
        var stale: Bool
    }

    /// Applies a checked notification inside `db`'s transaction: the
    /// duplicate and stale checks, the user's new state, the ledger row and
    /// the events. The App Store's notifications and restores come here too,
    /// in the transaction that records them.
    nonisolated func applyPurchase(
        _ request: ApplyPurchaseNotificationRequest, at now: Date, context: RequestContext?, in db: Database
    ) throws(SubscriptionError) -> AppliedPurchase {
        let nowMs = Self.unixMs(now)
        guard let user = try Self.catching({ try UserRecord.fetchOne(db, key: request.userID) }) else { throw .unknownUser(request.userID) }
        let seen = try Self.catching {
            try PurchaseRecord.filter(Column("transactionKey") == PurchaseRecord.transactionKey(request)).fetchCount(db) > 0
                || (!request.notificationID.isEmpty && PurchaseRecord.filter(Column("notificationID") == request.notificationID).fetchCount(db) > 0)
        }
        if seen { return AppliedPurchase(user: user, cause: nil, duplicate: true, stale: false) }
        let stale = request.occurredAtUnixMs < user.lastNotificationAtUnixMs
        let (after, cause) = stale ? (user, nil) : PurchaseTransition.apply(request, to: user)
        try Self.catching {
            if !stale { try after.update(db) }
            try PurchaseRecord(request, appliedAt: nowMs, tierBefore: user.tierValue, tierAfter: after.tierValue, stale: stale).insert(db)
        }
        var recorded = PurchaseRecorded()
        recorded.transactionID = request.transactionID
        recorded.originalTransactionID = request.originalTransactionID
        recorded.userID = request.userID
        recorded.kind = request.kind
        recorded.product = request.product
        if request.hasPrice { recorded.price = request.price }
        recorded.occurredAtUnixMs = request.occurredAtUnixMs
        recorded.tier = after.tierValue
        try Self.catching { try self.events.append(recorded, parent: context, in: db) }
        var saved = after
        if let cause {
            saved = try appendTierChange(after, from: user.tierValue, cause: cause, transactionID: request.transactionID, at: now, parent: context, in: db)
        }
        return AppliedPurchase(user: saved, cause: cause, duplicate: false, stale: stale)
    }

    /// The user's ledger, oldest first.
    func purchaseHistory(_ request: PurchaseHistoryRequest) throws(SubscriptionError) -> PurchaseHistoryResponse {
        _ = try find(request.userID, email: nil)
        let records: [PurchaseRecord]
        do {
            records = try database.writer.read { db in
                try PurchaseRecord.filter(Column("userID") == request.userID).order(Column("sequence")).fetchAll(db)
            }
        } catch {
            throw .storage(error)
        }
        var response = PurchaseHistoryResponse()
        response.entries = records.map(\.entry)
        return response
    }

    /// Ends paid access whose time is up, at the clock's now: a cancelled
    /// subscription (auto-renew off) at the end of its paid period
    /// (`PURCHASE_EXPIRED`), and a billing retry at the end of its grace
    /// period (`GRACE_PERIOD_EXPIRED`). An auto-renewing subscription past
    /// its period is left to the store's RENEW, BILLING_RETRY or EXPIRE
    /// notification. An operator's Pro has no period (0) and never ends here.
    ///
    /// - Returns: how many users became Free.
    @discardableResult
    func endPaidPeriods() -> Int {
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        let ended: [(UserRecord, TierChangeCause)]
        do {
            ended = try database.write { db in
                let lapsed = Column("autoRenew") == false && Column("paidUntilUnixMs") > 0 && Column("paidUntilUnixMs") <= nowMs
                let graceOver = Column("graceUntilUnixMs") > 0 && Column("graceUntilUnixMs") <= nowMs
                let due = try UserRecord.filter(Column("tier") == Tier.pro.rawValue).filter(lapsed || graceOver).fetchAll(db)
                return try due.map { user in
                    var record = user
                    let cause: TierChangeCause = record.graceUntilUnixMs > 0 && record.graceUntilUnixMs <= nowMs ? .gracePeriodExpired : .purchaseExpired
                    record.tier = Tier.free.rawValue
                    record.graceUntilUnixMs = 0
                    record.autoRenew = false
                    try record.update(db)
                    return (try self.appendTierChange(record, from: .pro, cause: cause, at: now, parent: nil, in: db), cause)
                }
            }
        } catch {
            logger.error("paid-period check failed; retrying on the next one", metadata: ["error": "\(error)"])
            return 0
        }
        for (record, cause) in ended {
            logger.info("paid access ended", metadata: ["user": "\(record.userID)", "cause": "\(cause)"])
        }
        return ended.count
    }
}
