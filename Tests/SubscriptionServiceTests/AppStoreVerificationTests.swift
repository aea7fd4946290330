import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

private let day = AppStoreHarness.day

/// Every way a signed payload can be wrong is refused with its code, and
/// nothing is applied or recorded.
@Suite("App Store verification")
struct AppStoreVerificationTests {
    enum Forgery: String, CaseIterable, CustomTestStringConvertible {
        case tamperedPayload, tamperedTransaction, wrongRoot, leafWithoutMarker, intermediateWithoutMarker, expiredLeaf, es384
        case wrongBundle, wrongBundleInTransaction, wrongEnvironment, wrongAppAppleID, notAJWS, noChain
        var testDescription: String { rawValue }
    }

    @Test("a forged or foreign payload is refused with its code and changes nothing", arguments: Forgery.allCases)
    func refused(_ forgery: Forgery) async throws {
        let store = try AppStoreHarness()
        let user = try await store.user()
        let t0 = store.nowMs()
        let purchase = store.transaction("8000", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        let honest = { (chain: AppStoreTestChain?) in try await store.notification("SUBSCRIBED", signedAt: t0, transaction: purchase, chain: chain) }
        let payload: String
        let code: String
        switch forgery {
        case .tamperedPayload:
            // The notification's signature kept, its payload changed (a later expiry for another user's purchase would look the same).
            let genuine = try await honest(nil)
            let forged = AppStoreTestNotification(
                notificationType: "SUBSCRIBED", notificationUUID: "forged", signedDate: t0,
                data: AppStoreTestNotificationData(
                    appAppleId: AppStoreHarness.appAppleID, bundleId: AppStoreHarness.bundleID, environment: "Production",
                    signedTransactionInfo: try await store.chain.sign(purchase)))
            payload = try AppStoreTestChain.tampered(genuine, with: forged)
            code = "untrusted-signature"
        case .tamperedTransaction:
            var longer = purchase
            longer.expiresDate = t0 + 3_650 * day
            let signedTransaction = try AppStoreTestChain.tampered(try await store.chain.sign(purchase), with: longer)
            payload = try await store.chain.sign(
                AppStoreTestNotification(
                    notificationType: "SUBSCRIBED", notificationUUID: "n-1", signedDate: t0,
                    data: AppStoreTestNotificationData(
                        appAppleId: AppStoreHarness.appAppleID, bundleId: AppStoreHarness.bundleID, environment: "Production", signedTransactionInfo: signedTransaction)))
            code = "untrusted-signature"
        case .wrongRoot: (payload, code) = (try await honest(try AppStoreTestChain()), "untrusted-signature")
        case .leafWithoutMarker: (payload, code) = (try await honest(try store.chain.with(.leafWithoutMarker)), "untrusted-signature")
        case .intermediateWithoutMarker: (payload, code) = (try await honest(try store.chain.with(.intermediateWithoutMarker)), "untrusted-signature")
        case .expiredLeaf: (payload, code) = (try await honest(try store.chain.with(.expiredLeaf)), "untrusted-signature")
        case .es384: (payload, code) = (try await honest(try store.chain.with(.es384)), "untrusted-signature")
        case .wrongBundle:
            (payload, code) = (try await store.notification("SUBSCRIBED", signedAt: t0, transaction: purchase, bundle: "com.other.app"), "wrong-bundle-id")
        case .wrongBundleInTransaction:
            let foreign = store.transaction("8000", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day, bundle: "com.other.app")
            (payload, code) = (try await store.notification("SUBSCRIBED", signedAt: t0, transaction: foreign), "wrong-bundle-id")
        case .wrongEnvironment:
            (payload, code) = (try await store.notification("SUBSCRIBED", signedAt: t0, transaction: purchase, environment: "Sandbox"), "wrong-environment")
        case .wrongAppAppleID:
            (payload, code) = (try await store.notification("SUBSCRIBED", signedAt: t0, transaction: purchase, appAppleID: 42), "wrong-app-apple-id")
        case .notAJWS: (payload, code) = ("not.a-jws", "malformed-signed-payload")
        case .noChain:
            // Valid JWS structure without x5c: a payload from anyone.
            let parts = try await honest(nil).split(separator: ".")
            let header = Data(#"{"alg":"ES256","typ":"JWT"}"#.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            (payload, code) = ("\(header).\(parts[1]).\(parts[2])", "untrusted-signature")
        }
        await #expect {
            try await store.send(payload)
        } throws: { error in
            (error as? SubscriptionError)?.code == code
        }
        #expect(try await store.stored(user.userID).tier == .trial)
        #expect(try await store.ledger(user.userID).isEmpty)
        #expect(try store.recent().isEmpty)
        // The honest payload, to show the refusal was the forgery's alone.
        if forgery == .tamperedPayload {
            #expect(try await store.send(try await honest(nil)).outcome == .applied)
        }
    }

    @Test("a sandbox deployment takes Sandbox payloads (no app Apple id needed) and refuses Production ones")
    func sandbox() async throws {
        let store = try AppStoreHarness(environment: .sandbox)
        let user = try await store.user()
        let t0 = store.nowMs()
        let purchase = store.transaction("8100", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day)
        #expect(try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0, transaction: purchase, appAppleID: nil)).outcome == .applied)
        let production = store.transaction("8200", token: user.appAccountToken, signedAt: t0, expires: t0 + 30 * day, environment: "Production")
        await #expect {
            try await store.send(try await store.notification("SUBSCRIBED", signedAt: t0, transaction: production, appAppleID: nil))
        } throws: { ($0 as? SubscriptionError)?.code == "wrong-environment" }
    }

    @Test("without appstore.bundleId the App Store requests answer appstore-not-configured")
    func notConfigured() async throws {
        let fixture = try SubscriptionFixture()
        var request = AppStoreNotificationRequest()
        request.signedPayload = "a.b.c"
        await #expect { try await fixture.service.receiveAppStoreNotification(request, context: nil) } throws: {
            ($0 as? SubscriptionError)?.code == "appstore-not-configured"
        }
        var restore = RestorePurchaseRequest()
        restore.userID = "u-0000000000000001"
        restore.signedTransaction = "a.b.c"
        await #expect { try await fixture.service.restorePurchase(restore, context: nil) } throws: {
            ($0 as? SubscriptionError)?.code == "appstore-not-configured"
        }
    }
}
