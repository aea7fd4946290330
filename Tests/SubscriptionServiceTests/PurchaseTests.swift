import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import SubscriptionService

/// One day in milliseconds.
private let day: Int64 = 86_400_000

@Suite("Purchase notifications")
struct PurchaseTests {
    @Test("START makes a trial user Pro until expires_at with auto-renew on, and publishes PurchaseRecorded and TierChanged(trial → Pro, PURCHASE_STARTED) with the transaction and Pro's entitlements")
    func startMakesPro() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        var start = notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 365 * day, product: .annual)
        start.price.currency = "USD"
        start.price.minorUnits = 4_999
        let response = try await fixture.service.applyPurchase(start)
        #expect(!response.duplicate && !response.stale)
        let pro = response.user
        #expect(pro.tier == .pro && pro.product == .annual && pro.paidUntilUnixMs == t0 + 365 * day && pro.autoRenew)
        #expect(pro.graceUntilUnixMs == 0 && !pro.setByOperator)
        let stored = try await fixture.service.user(get(user.userID))
        #expect(stored.user == pro, "the answer is what was stored")
        #expect(stored.entitlements == TierEntitlements.of(.pro))

        let events = try await fixture.eventsBeforeMarker(all)
        let recorded = events.compactMap { $0 as? PurchaseRecorded }
        #expect(recorded.count == 1)
        let purchase = try #require(recorded.first)
        #expect(purchase.transactionID == "tx-1" && purchase.originalTransactionID == "orig-\(user.userID)" && purchase.userID == user.userID)
        #expect(purchase.kind == .start && purchase.product == .annual && purchase.occurredAtUnixMs == t0 && purchase.tier == .pro)
        #expect(purchase.price.currency == "USD" && purchase.price.minorUnits == 4_999)
        let changes = events.tierChanges(of: user.userID)
        #expect(changes.map(\.cause) == [.trialStarted, .purchaseStarted])
        let change = try #require(changes.last)
        #expect(change.previous == .trial && change.current == .pro && change.transactionID == "tx-1")
        #expect(change.entitlements == TierEntitlements.of(.pro))
        #expect(change.atUnixMs == t0)
    }

    @Test("a replayed notification (same transaction and kind, or same notification id) answers duplicate, changes nothing, publishes nothing and adds no ledger entry")
    func replayIsDuplicate() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        var start = notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day)
        start.notificationID = "n-1"
        let first = try await fixture.service.applyPurchase(start)
        #expect(!first.duplicate && first.user.tier == .pro)
        fixture.clock.advance(by: 60)

        // The very same notification again.
        let replay = try await fixture.service.applyPurchase(start)
        #expect(replay.duplicate && !replay.stale)
        #expect(replay.user == first.user)
        // Same transaction and kind, sent again under a new notification id.
        var resent = start
        resent.notificationID = "n-2"
        resent.occurredAtUnixMs = t0 + 60_000
        resent.expiresAtUnixMs = t0 + 60 * day
        let second = try await fixture.service.applyPurchase(resent)
        #expect(second.duplicate)
        #expect(second.user == first.user, "the later expiry of a duplicate is not applied")
        // Same notification id, another transaction (a REFUND, which would make the user Free).
        var sameID = notification(.refund, user: user.userID, tx: "tx-2", at: t0 + 60_000)
        sameID.notificationID = "n-1"
        let third = try await fixture.service.applyPurchase(sameID)
        #expect(third.duplicate)
        #expect(third.user == first.user)

        #expect(try await fixture.service.user(get(user.userID)).user == first.user)
        let history = try await fixture.service.purchaseHistory(history(user.userID))
        #expect(history.entries.map(\.notification) == [start])
        #expect(try fixture.ledgerCount() == 1)

        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.compactMap { $0 as? PurchaseRecorded }.map(\.transactionID) == ["tx-1"])
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted])
    }

    @Test("a RENEW that occurred before an already applied REFUND is stale: kept in the ledger in arrival order, the user stays Free, no TierChanged")
    func lateRenewIsStale() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        let t1 = t0 + 1 * day
        let t2 = t0 + 2 * day
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 2 * 86_400 + 60)
        let refunded = try await fixture.service.applyPurchase(notification(.refund, user: user.userID, tx: "tx-1", at: t2))
        #expect(!refunded.stale && refunded.user.tier == .free)

        let late = try await fixture.service.applyPurchase(notification(.renew, user: user.userID, tx: "tx-renew", at: t1, expires: t1 + 30 * day))
        #expect(late.stale && !late.duplicate)
        #expect(late.user == refunded.user, "a stale notification changes nothing")
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .free)

        let entries = try await fixture.service.purchaseHistory(history(user.userID)).entries
        #expect(entries.map(\.notification.kind) == [.start, .refund, .renew], "arrival order, not occurrence order")
        #expect(entries.map(\.stale) == [false, false, true])
        let last = try #require(entries.last)
        #expect(last.tierBefore == .free && last.tierAfter == .free)
        #expect(last.notification.transactionID == "tx-renew" && last.notification.occurredAtUnixMs == t1)

        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted, .purchaseRefunded])
    }

    @Test("REFUND makes Pro Free at once, before the paid period ends (TierChanged PURCHASE_REFUNDED); the refund may reuse the purchase's transaction id")
    func refundEndsProAtOnce() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 86_400)
        let refund = try await fixture.service.applyPurchase(notification(.refund, user: user.userID, tx: "tx-1", at: t0 + day))
        #expect(!refund.duplicate && !refund.stale)
        #expect(refund.user.tier == .free && !refund.user.autoRenew)
        #expect(t0 + 30 * day > fixture.nowMs(), "the paid period had not ended")
        #expect(refund.user.paidUntilUnixMs == 0 && refund.user.product == .unspecified, "the paid fields describe a Pro user only")
        #expect(try await fixture.service.entitlements(entitlements(user.userID)).entitlements == TierEntitlements.of(.free))

        let events = try await fixture.eventsBeforeMarker(all)
        let change = try #require(events.tierChanges(of: user.userID).last)
        #expect(change.previous == .pro && change.current == .free && change.cause == .purchaseRefunded)
        #expect(change.transactionID == "tx-1" && change.entitlements == TierEntitlements.of(.free))
    }

    @Test("CANCEL keeps Pro until paid_until: one second before, endPaidPeriods ends nothing; at paid_until the user is Free (TierChanged PURCHASE_EXPIRED)")
    func cancelKeepsProUntilPaidUntil() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 86_400)
        let cancelled = try await fixture.service.applyPurchase(notification(.cancel, user: user.userID, tx: "tx-1", at: t0 + day))
        #expect(cancelled.user.tier == .pro && !cancelled.user.autoRenew && cancelled.user.paidUntilUnixMs == t0 + 30 * day)

        fixture.clock.advance(by: 29 * 86_400 - 1)
        #expect(await fixture.service.endPaidPeriods() == 0)
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .pro, "Pro one second before paid_until")
        fixture.clock.advance(by: 1)
        #expect(fixture.nowMs() == t0 + 30 * day)
        #expect(await fixture.service.endPaidPeriods() == 1)
        #expect(await fixture.service.endPaidPeriods() == 0, "ended once")
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .free)

        let events = try await fixture.eventsBeforeMarker(all)
        let changes = events.tierChanges(of: user.userID)
        #expect(changes.map(\.cause) == [.trialStarted, .purchaseStarted, .purchaseExpired])
        let change = try #require(changes.last)
        #expect(change.previous == .pro && change.current == .free && change.entitlements == TierEntitlements.of(.free))
        #expect(change.atUnixMs == t0 + 30 * day)
    }

    @Test("an auto-renewing Pro past its paid period is not ended by endPaidPeriods: it waits for the store's notification")
    func autoRenewingProWaitsForStore() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 31 * 86_400)
        #expect(await fixture.service.endPaidPeriods() == 0)
        let now = try await fixture.service.user(get(user.userID)).user
        #expect(now.tier == .pro && now.autoRenew)

        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted])
    }

    @Test("BILLING_RETRY keeps Pro until grace_period_ends_at; then endPaidPeriods makes the user Free (TierChanged GRACE_PERIOD_EXPIRED)")
    func billingRetryGraceEnds() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 30 * 86_400)
        var retry = notification(.billingRetry, user: user.userID, tx: "tx-retry", at: t0 + 30 * day)
        retry.gracePeriodEndsAtUnixMs = t0 + 46 * day
        let retrying = try await fixture.service.applyPurchase(retry)
        #expect(retrying.user.tier == .pro && retrying.user.graceUntilUnixMs == t0 + 46 * day && retrying.user.autoRenew)
        #expect(await fixture.service.endPaidPeriods() == 0)

        fixture.clock.advance(by: 16 * 86_400 - 1)
        #expect(await fixture.service.endPaidPeriods() == 0)
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .pro, "access kept one second before the grace ends")
        fixture.clock.advance(by: 1)
        #expect(await fixture.service.endPaidPeriods() == 1)
        let after = try await fixture.service.user(get(user.userID)).user
        #expect(after.tier == .free && after.graceUntilUnixMs == 0)

        let events = try await fixture.eventsBeforeMarker(all)
        let changes = events.tierChanges(of: user.userID)
        #expect(changes.map(\.cause) == [.trialStarted, .purchaseStarted, .gracePeriodExpired])
        #expect(changes.last?.previous == .pro && changes.last?.current == .free)
    }

    @Test("a RENEW during a billing retry's grace period clears it: the user stays Pro past the old grace end")
    func renewDuringGraceClearsIt() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 30 * 86_400)
        var retry = notification(.billingRetry, user: user.userID, tx: "tx-retry", at: t0 + 30 * day)
        retry.gracePeriodEndsAtUnixMs = t0 + 46 * day
        _ = try await fixture.service.applyPurchase(retry)
        fixture.clock.advance(by: 5 * 86_400)
        let renewed = try await fixture.service.applyPurchase(notification(.renew, user: user.userID, tx: "tx-2", at: t0 + 35 * day, expires: t0 + 65 * day))
        #expect(renewed.user.tier == .pro && renewed.user.graceUntilUnixMs == 0 && renewed.user.paidUntilUnixMs == t0 + 65 * day && renewed.user.autoRenew)

        fixture.clock.advance(by: 12 * 86_400)  // a day past the old grace end
        #expect(await fixture.service.endPaidPeriods() == 0)
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .pro)

        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted])
    }

    @Test("EXPIRE makes Pro Free (TierChanged PURCHASE_EXPIRED)")
    func expireEndsPro() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        _ = try await fixture.service.applyPurchase(notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day))
        fixture.clock.advance(by: 31 * 86_400)
        let expired = try await fixture.service.applyPurchase(notification(.expire, user: user.userID, tx: "tx-exp", at: t0 + 31 * day))
        #expect(expired.user.tier == .free && !expired.user.autoRenew)

        let events = try await fixture.eventsBeforeMarker(all)
        let change = try #require(events.tierChanges(of: user.userID).last)
        #expect(change.previous == .pro && change.current == .free && change.cause == .purchaseExpired && change.transactionID == "tx-exp")
    }

    @Test("a bad notification is refused with invalid-field naming the field (unknown-user for an unknown user); nothing is written or published")
    func badNotifications() async throws {
        let fixture = try SubscriptionFixture()
        let all = fixture.bus.subscribeAll()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let id = user.userID
        let t0 = fixture.nowMs()
        var retry = notification(.billingRetry, user: id, tx: "tx-retry", at: t0)
        retry.gracePeriodEndsAtUnixMs = 0
        let cases: [(String, ApplyPurchaseNotificationRequest, String, String?)] = [
            ("empty transaction id", notification(.start, user: id, tx: "", at: t0, expires: t0 + day), "invalid-field", "transaction_id"),
            ("blank transaction id", notification(.start, user: id, tx: "   ", at: t0, expires: t0 + day), "invalid-field", "transaction_id"),
            ("kind unspecified", notification(.unspecified, user: id, tx: "tx-1", at: t0, expires: t0 + day), "invalid-field", "kind"),
            ("START without product", notification(.start, user: id, tx: "tx-1", at: t0, expires: t0 + day, product: .unspecified), "invalid-field", "product"),
            ("START expiring when it occurred", notification(.start, user: id, tx: "tx-1", at: t0, expires: t0), "invalid-field", "expires_at_unix_ms"),
            ("START expiring before it occurred", notification(.start, user: id, tx: "tx-1", at: t0, expires: t0 - 1), "invalid-field", "expires_at_unix_ms"),
            ("BILLING_RETRY without grace end", retry, "invalid-field", "grace_period_ends_at_unix_ms"),
            ("unknown user", notification(.start, user: "u-nobody", tx: "tx-1", at: t0, expires: t0 + day), "unknown-user", nil),
        ]
        for (what, request, code, field) in cases {
            let error = await #expect(throws: SubscriptionError.self, "\(what)") { try await fixture.service.applyPurchase(request) }
            #expect(error?.code == code, "\(what)")
            #expect(error?.field == field, "\(what)")
            if let field { #expect(error?.message.hasPrefix("\(field): ") == true, "\(what): \(error?.message ?? "")") }
        }
        await #expect(throws: SubscriptionError.unknownUser("u-nobody")) {
            try await fixture.service.applyPurchase(notification(.start, user: "u-nobody", tx: "tx-1", at: t0, expires: t0 + day))
        }

        #expect(try fixture.ledgerCount() == 0, "nothing written to the ledger")
        #expect(try await fixture.service.user(get(id)).user == user, "the user is unchanged")
        let events = try await fixture.eventsBeforeMarker(all)
        #expect(events.compactMap { $0 as? PurchaseRecorded }.isEmpty)
        #expect(events.tierChanges(of: id).map(\.cause) == [.trialStarted])
    }

    @Test("purchaseHistory explains the tier: after START and CANCEL and the end of the period it lists START then CANCEL with the tier before and after each")
    func historyExplainsTier() async throws {
        let fixture = try SubscriptionFixture()
        let user = try await fixture.service.createUser(SubscriptionFixture.create()).user
        let t0 = fixture.nowMs()
        let start = notification(.start, user: user.userID, tx: "tx-1", at: t0, expires: t0 + 30 * day)
        _ = try await fixture.service.applyPurchase(start)
        fixture.clock.advance(by: 86_400)
        let cancel = notification(.cancel, user: user.userID, tx: "tx-1", at: t0 + day)
        _ = try await fixture.service.applyPurchase(cancel)
        fixture.clock.advance(by: 30 * 86_400)
        #expect(await fixture.service.endPaidPeriods() == 1)
        #expect(try await fixture.service.user(get(user.userID)).user.tier == .free)

        let entries = try await fixture.service.purchaseHistory(history(user.userID)).entries
        #expect(entries.map(\.notification) == [start, cancel], "oldest first, as they arrived")
        #expect(entries.map(\.tierBefore) == [.trial, .pro])
        #expect(entries.map(\.tierAfter) == [.pro, .pro])
        #expect(entries.map(\.stale) == [false, false])
        #expect(entries.map(\.appliedAtUnixMs) == [t0, t0 + day])
    }

    // MARK: Helpers

    func notification(_ kind: PurchaseKind, user: String, tx: String, at: Int64, expires: Int64 = 0, product: SubscriptionProduct = .monthly) -> ApplyPurchaseNotificationRequest {
        var request = ApplyPurchaseNotificationRequest()
        request.transactionID = tx
        request.originalTransactionID = "orig-\(user)"
        request.userID = user
        request.kind = kind
        request.product = product
        request.occurredAtUnixMs = at
        request.expiresAtUnixMs = expires
        return request
    }

    func get(_ userID: String) -> GetUserRequest {
        var request = GetUserRequest()
        request.userID = userID
        return request
    }

    func history(_ userID: String) -> PurchaseHistoryRequest {
        var request = PurchaseHistoryRequest()
        request.userID = userID
        return request
    }

    func entitlements(_ userID: String) -> GetEntitlementsRequest {
        var request = GetEntitlementsRequest()
        request.userID = userID
        return request
    }
}

extension SubscriptionFixture {
    /// The fixture clock's now, Unix epoch milliseconds.
    func nowMs() -> Int64 { SubscriptionService.unixMs(clock.now()) }

    /// Rows in the purchase ledger (all users, or one).
    func ledgerCount(userID: String? = nil) throws -> Int {
        try database.writer.read { db in
            if let userID { return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM purchase WHERE userID = ?", arguments: [userID]) ?? 0 }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM purchase") ?? 0
        }
    }

    /// Everything the service published so far, in order, as `all` (a
    /// subscription to every topic made before) received it: runs the
    /// service, creates a marker user whose events are queued behind all
    /// earlier ones, and reads up to the marker's `UserPreferencesChanged`
    /// (the marker's own events are left out). An event that should not
    /// have been published is therefore seen, without waiting out a time
    /// limit. Runs the service, so call it once, at the end of a test.
    func eventsBeforeMarker(_ all: EventSubscription<any BusEvent>) async throws -> [any BusEvent] {
        try await running {
            let marker = try await service.createUser(SubscriptionFixture.create("marker@example.com")).user.userID
            return try await withTimeLimit("the marker's events arrived") {
                var received: [any BusEvent] = []
                for await delivery in all {
                    if let preferences = delivery.event as? UserPreferencesChanged, preferences.userID == marker { break }
                    if let change = delivery.event as? TierChanged, change.userID == marker { continue }
                    received.append(delivery.event)
                }
                return received
            }
        }
    }
}

extension [any BusEvent] {
    /// The `TierChanged` events for one user, in order.
    func tierChanges(of userID: String) -> [TierChanged] {
        compactMap { $0 as? TierChanged }.filter { $0.userID == userID }
    }
}
