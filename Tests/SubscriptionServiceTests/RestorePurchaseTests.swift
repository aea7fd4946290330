import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

private let day = AppStoreHarness.day

@Suite("Restore Purchase (StoreKit 2 signed transactions)")
struct RestorePurchaseTests {
    @Test("the user's own transaction makes them Pro and answers Pro's entitlements; the App Store's notification of it afterwards is a duplicate")
    func ownTransaction() async throws {
        let store = try AppStoreHarness()
        let user = try await store.user()
        let t0 = store.nowMs()
        let purchase = store.transaction("9000", token: user.appAccountToken.uppercased(), signedAt: t0, expires: t0 + 365 * day, product: AppStoreHarness.annual)
        let restored = try await store.restore(try await store.chain.sign(purchase), for: user.userID)
        #expect(restored.user.tier == .pro && restored.user.product == .annual && restored.kind == .start && !restored.duplicate && !restored.inactive)
        #expect(restored.entitlements == TierEntitlements.of(.pro))
        let again = try await store.restore(try await store.chain.sign(purchase), for: user.userID)
        #expect(again.duplicate)
        let notified = try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0, transaction: purchase))
        #expect(notified.outcome == .duplicate, "one transaction is one purchase, by whichever path it came first")
        #expect(try await store.ledger(user.userID).count == 1)
    }

    @Test("another user's transaction, one without an appAccountToken, or one of a subscription already another user's is refused with app-account-token-mismatch and changes nothing")
    func anotherUsers() async throws {
        let store = try AppStoreHarness()
        let ana = try await store.user("ana@example.com")
        let mallory = try await store.user("mallory@example.com")
        let t0 = store.nowMs()
        let anas = store.transaction("9100", token: ana.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        await #expect { try await store.restore(try await store.chain.sign(anas), for: mallory.userID) } throws: {
            ($0 as? SubscriptionError)?.code == "app-account-token-mismatch"
        }
        let tokenless = store.transaction("9200", token: nil, signedAt: t0, expires: t0 + 30 * day)
        await #expect { try await store.restore(try await store.chain.sign(tokenless), for: mallory.userID) } throws: {
            ($0 as? SubscriptionError)?.code == "app-account-token-mismatch"
        }
        // Ana's subscription is applied for Ana; a renewal of it that names Mallory's token cannot move it.
        _ = try await store.restore(try await store.chain.sign(anas), for: ana.userID)
        let hijack = store.transaction("9101", original: "9100", token: mallory.appAccountToken, signedAt: t0 + 30 * day, expires: t0 + 60 * day)
        await #expect { try await store.restore(try await store.chain.sign(hijack), for: mallory.userID) } throws: {
            ($0 as? SubscriptionError)?.code == "app-account-token-mismatch"
        }
        #expect(try await store.stored(mallory.userID).tier == .trial)
        #expect(try await store.ledger(mallory.userID).isEmpty)
        #expect(try await store.stored(ana.userID).paidUntilUnixMs == t0 + 30 * day)
    }

    @Test("an expired or revoked transaction is answered inactive and changes nothing; a forged one is refused by the verifier's code")
    func inactiveAndForged() async throws {
        let store = try AppStoreHarness()
        let user = try await store.user()
        let t0 = store.nowMs()
        let lapsed = store.transaction("9300", token: user.appAccountToken, signedAt: t0, expires: t0 - day)
        let answer = try await store.restore(try await store.chain.sign(lapsed), for: user.userID)
        #expect(answer.inactive && answer.user.tier == .trial && answer.kind == .unspecified)
        var revoked = store.transaction("9400", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        revoked.revocationDate = t0 - 1
        #expect(try await store.restore(try await store.chain.sign(revoked), for: user.userID).inactive)
        let fine = store.transaction("9500", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        let foreign = try AppStoreTestChain()
        await #expect { try await store.restore(try await foreign.sign(fine), for: user.userID) } throws: {
            ($0 as? SubscriptionError)?.code == "untrusted-signature"
        }
        #expect(try await store.ledger(user.userID).isEmpty)
    }

    @Test("Apple's prices are thousandths of the unit: 9990 USD is 999 cents, 1200000 JPY is 1200 yen, 3500 KWD is 3500 fils")
    func prices() {
        func minor(_ milli: Int64, _ currency: String) -> Int64? {
            var transaction = TransactionPayload(transactionId: "1", originalTransactionId: "1", bundleId: "b", productId: "p", signedDate: 0)
            transaction.price = milli
            transaction.currency = currency
            return StoreNotificationMapping.price(transaction)?.minorUnits
        }
        #expect(minor(9_990, "USD") == 999)
        #expect(minor(1_200_000, "JPY") == 1_200)
        #expect(minor(3_500, "KWD") == 3_500)
        #expect(minor(9_990, "XYZ") == nil)
    }
}
