import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

private let day = AppStoreHarness.day

@Suite("App Store Server Notifications V2")
struct AppStoreNotificationTests {
    @Test("a subscription's life through its notifications: SUBSCRIBED, auto-renew off and on, DID_RENEW, a failed renewal in grace, a recovery, REFUND, then a RESUBSCRIBE — each applied once, in the ledger, with the tier and its causes")
    func lifecycle() async throws {
        let store = try AppStoreHarness()
        let all = store.fixture.bus.subscribeAll()
        let user = try await store.user()
        #expect(user.appAccountToken.count == 36, "every user has a UUID for StoreKit's appAccountToken")
        let t0 = store.nowMs()
        let first = store.transaction("1000", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)

        let subscribed = try await store.send(try await store.notification("SUBSCRIBED", "INITIAL_BUY", signedAt: t0, transaction: first))
        #expect(subscribed.outcome == .applied && subscribed.kind == .start)
        var stored = try await store.stored(user.userID)
        #expect(stored.tier == .pro && stored.product == .monthly && stored.paidUntilUnixMs == t0 + 30 * day && stored.autoRenew)

        try await store.send(try await store.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signedAt: t0 + day, transaction: first))
        #expect(try await store.stored(user.userID).autoRenew == false)
        try await store.send(try await store.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", signedAt: t0 + 2 * day, transaction: first))
        #expect(try await store.stored(user.userID).autoRenew == true)
        // Off again on the same transaction: a second CANCEL is a new notification, not a replay.
        let offAgain = try await store.send(try await store.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signedAt: t0 + 3 * day, transaction: first))
        #expect(offAgain.outcome == .applied)
        #expect(try await store.stored(user.userID).autoRenew == false)
        try await store.send(try await store.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", signedAt: t0 + 4 * day, transaction: first))

        let second = store.transaction("1001", original: "1000", token: user.appAccountToken, signedAt: t0 + 30 * day, expires: t0 + 60 * day)
        let renewed = try await store.send(try await store.notification("DID_RENEW", signedAt: t0 + 30 * day, transaction: second))
        #expect(renewed.outcome == .applied && renewed.kind == .renew)
        #expect(try await store.stored(user.userID).paidUntilUnixMs == t0 + 60 * day)

        let grace = t0 + 76 * day
        let failed = try await store.send(
            try await store.notification(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", signedAt: t0 + 60 * day, transaction: second,
                renewal: store.renewal(original: "1000", signedAt: t0 + 60 * day, grace: grace)))
        #expect(failed.kind == .billingRetry)
        stored = try await store.stored(user.userID)
        #expect(stored.tier == .pro && stored.graceUntilUnixMs == grace, "access is kept through the grace period")

        let third = store.transaction("1002", original: "1000", token: user.appAccountToken, signedAt: t0 + 62 * day, expires: t0 + 92 * day)
        try await store.send(try await store.notification("DID_RENEW", "BILLING_RECOVERY", signedAt: t0 + 62 * day, transaction: third))
        stored = try await store.stored(user.userID)
        #expect(stored.tier == .pro && stored.graceUntilUnixMs == 0 && stored.paidUntilUnixMs == t0 + 92 * day)

        let refund = try await store.send(try await store.notification("REFUND", signedAt: t0 + 63 * day, transaction: third))
        #expect(refund.kind == .refund)
        #expect(try await store.stored(user.userID).tier == .free)

        // Back again: a new subscription of the same group.
        let back = store.transaction("1100", token: user.appAccountToken, signedAt: t0 + 70 * day, expires: t0 + 100 * day, product: AppStoreHarness.annual)
        let resubscribed = try await store.send(try await store.notification("SUBSCRIBED", "RESUBSCRIBE", signedAt: t0 + 70 * day, transaction: back))
        #expect(resubscribed.kind == .start)
        stored = try await store.stored(user.userID)
        #expect(stored.tier == .pro && stored.product == .annual && stored.paidUntilUnixMs == t0 + 100 * day)

        let kinds = try await store.ledger(user.userID).map(\.notification.kind)
        #expect(kinds == [.start, .cancel, .resume, .cancel, .resume, .renew, .billingRetry, .renew, .refund, .start])
        let events = try await store.fixture.eventsBeforeMarker(all)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted, .purchaseRefunded, .purchaseStarted])
        #expect(events.compactMap { $0 as? PurchaseRecorded }.count == 10)
        #expect(try store.recent().count == 10 && store.recent().allSatisfy { $0.outcome == .applied && $0.userID == user.userID })
    }

    @Test(
        "each notification that ends access makes a Pro user Free with its cause",
        arguments: [
            ("DID_FAIL_TO_RENEW", nil, TierChangeCause.purchaseExpired), ("GRACE_PERIOD_EXPIRED", nil, .purchaseExpired),
            ("EXPIRED", "VOLUNTARY", .purchaseExpired), ("EXPIRED", "BILLING_RETRY", .purchaseExpired),
            ("REFUND", nil, .purchaseRefunded), ("REVOKE", nil, .purchaseRevoked),
        ] as [(String, String?, TierChangeCause)])
    func endsAccess(type: String, subtype: String?, cause: TierChangeCause) async throws {
        let store = try AppStoreHarness()
        let all = store.fixture.bus.subscribeAll()
        let user = try await store.user()
        let t0 = store.nowMs()
        let purchase = store.transaction("2000", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        try await store.send(try await store.notification("SUBSCRIBED", "INITIAL_BUY", signedAt: t0, transaction: purchase))
        let ended = try await store.send(try await store.notification(type, subtype, signedAt: t0 + 31 * day, transaction: purchase))
        #expect(ended.outcome == .applied)
        #expect(try await store.stored(user.userID).tier == .free)
        let events = try await store.fixture.eventsBeforeMarker(all)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted, cause])
    }

    @Test("TEST and the types the product does not act on are recorded and answered, and change no one")
    func recordedOnly() async throws {
        let store = try AppStoreHarness()
        let user = try await store.user()
        let t0 = store.nowMs()
        let test = try await store.send(try await store.notification("TEST", signedAt: t0, transaction: nil))
        #expect(test.outcome == .recorded && test.notificationType == "TEST")
        let purchase = store.transaction("3000", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        for type in ["PRICE_INCREASE", "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "RENEWAL_EXTENDED"] {
            let answer = try await store.send(try await store.notification(type, signedAt: t0 + 1, transaction: purchase))
            #expect(answer.outcome == .recorded, "\(type)")
            #expect(answer.detail.contains("does not act on it"))
        }
        // A product this server does not sell.
        let other = store.transaction("3001", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day, product: "com.farelens.tip")
        let tip = try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0 + 2, transaction: other))
        #expect(tip.outcome == .recorded && tip.detail.contains("com.farelens.tip"))
        #expect(try await store.stored(user.userID).tier == .trial)
        #expect(try await store.ledger(user.userID).isEmpty)
        let recent = try store.recent()
        #expect(recent.count == 6 && recent.last?.notificationType == "TEST", "newest first; the test notification is kept for the operator")
    }

    @Test("a notification whose transaction names no known user is recorded as unmatched; a later one of the same subscription without a token finds its user through the ledger")
    func unmatchedAndLedgerLink() async throws {
        let store = try AppStoreHarness()
        let user = try await store.user()
        let t0 = store.nowMs()
        let stranger = store.transaction("4000", token: UUID().uuidString.lowercased(), signedAt: t0, expires: t0 + 30 * day)
        let unmatched = try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0, transaction: stranger))
        #expect(unmatched.outcome == .unmatched)

        let mine = store.transaction("4100", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0, transaction: mine))
        let renewalWithoutToken = store.transaction("4101", original: "4100", token: nil, signedAt: t0 + 30 * day, expires: t0 + 60 * day)
        let renewed = try await store.send(try await store.notification("DID_RENEW", signedAt: t0 + 30 * day, transaction: renewalWithoutToken))
        #expect(renewed.outcome == .applied)
        #expect(try await store.stored(user.userID).paidUntilUnixMs == t0 + 60 * day)
    }

    @Test("the same notification twice, or eight copies at once, is applied once: one ledger entry, one set of events, the others answered duplicate")
    func appliedOnce() async throws {
        let store = try AppStoreHarness()
        let all = store.fixture.bus.subscribeAll()
        let user = try await store.user()
        let t0 = store.nowMs()
        let purchase = store.transaction("5000", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        let payload = try await store.notification("SUBSCRIBED", "INITIAL_BUY", signedAt: t0, transaction: purchase)
        let outcomes = try await withThrowingTaskGroup(of: StoreNotificationOutcome.self) { group in
            for _ in 0..<8 { group.addTask { try await store.send(payload).outcome } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .applied }.count == 1)
        #expect(outcomes.filter { $0 == .duplicate }.count == 7)
        #expect(try await store.send(payload).outcome == .duplicate)
        #expect(try await store.ledger(user.userID).count == 1)
        #expect(try store.recent().count == 1)
        let events = try await store.fixture.eventsBeforeMarker(all)
        #expect(events.compactMap { $0 as? PurchaseRecorded }.count == 1)
        #expect(events.tierChanges(of: user.userID).map(\.cause) == [.trialStarted, .purchaseStarted])
    }

    @Test("out of order: a renewal before its subscribe ends Pro until the renewal's expiry; an expiry before the renewal it followed ends Free")
    func outOfOrder() async throws {
        let store = try AppStoreHarness()
        let ana = try await store.user("ana@example.com")
        let t0 = store.nowMs()
        let first = store.transaction("6000", token: ana.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        let second = store.transaction("6001", original: "6000", token: ana.appAccountToken, signedAt: t0 + 30 * day, expires: t0 + 60 * day)
        let renew = try await store.notification("DID_RENEW", signedAt: t0 + 30 * day, transaction: second)
        let subscribe = try await store.notification("SUBSCRIBED", "INITIAL_BUY", signedAt: t0, transaction: first)
        #expect(try await store.send(renew).outcome == .applied)
        #expect(try await store.send(subscribe).outcome == .stale)
        var stored = try await store.stored(ana.userID)
        #expect(stored.tier == .pro && stored.paidUntilUnixMs == t0 + 60 * day)

        let ben = try await store.user("ben@example.com")
        let benFirst = store.transaction("7000", token: ben.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        let benSecond = store.transaction("7001", original: "7000", token: ben.appAccountToken, signedAt: t0 + 30 * day, expires: t0 + 60 * day)
        try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0, transaction: benFirst))
        let expired = try await store.notification("EXPIRED", "VOLUNTARY", signedAt: t0 + 60 * day, transaction: benSecond)
        let lateRenew = try await store.notification("DID_RENEW", signedAt: t0 + 30 * day, transaction: benSecond)
        #expect(try await store.send(expired).outcome == .applied)
        #expect(try await store.send(lateRenew).outcome == .stale)
        stored = try await store.stored(ben.userID)
        #expect(stored.tier == .free)
    }
}
