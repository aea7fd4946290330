import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

/// The App Store's notifications against real processes: the subscription
/// service in a process of its own, killed with SIGKILL while notifications
/// are in flight through the gateway; the App Store's retries (every
/// notification sent again until answered 200) then apply each exactly once.
@Suite("Payments across processes and a crash", .serialized)
struct PaymentsProcessTests {
    static let bundleID = "com.farelens.app"
    static let day: Int64 = 86_400_000

    /// `appstore.*` for a sandbox that trusts `chain`'s root, written into `directory`.
    static func appStoreEnvironment(_ chain: AppStoreTestChain, directory: String) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let root = directory + "/test-root.cer"
        try Data(chain.rootDER).write(to: URL(fileURLWithPath: root))
        return [
            "FARELENS_APPSTORE_BUNDLE_ID": bundleID, "FARELENS_APPSTORE_ENVIRONMENT": "Sandbox", "FARELENS_APPSTORE_ROOT_CERTIFICATES": root,
            "FARELENS_SUBSCRIPTION_BCRYPT_COST": "4",
        ]
    }

    /// A subscription bought and renewed `count - 1` times: SUBSCRIBED, then DID_RENEWs, each signed a day after the one before.
    static func notifications(_ chain: AppStoreTestChain, token: String, count: Int) async throws -> (signed: [(uuid: String, body: String)], lastExpiry: Int64) {
        let t0 = Int64(Date().timeIntervalSince1970 * 1000) - Int64(count) * day
        var signed: [(String, String)] = []
        for index in 0..<count {
            let at = t0 + Int64(index) * day
            let transaction = AppStoreTestTransaction(
                transactionId: "p-\(index)", originalTransactionId: "p-0", bundleId: bundleID, productId: "com.farelens.pro.monthly", purchaseDate: at,
                expiresDate: at + 30 * day, appAccountToken: token, environment: "Sandbox", signedDate: at)
            let uuid = UUID().uuidString.lowercased()
            let data = AppStoreTestNotificationData(appAppleId: nil, bundleId: bundleID, environment: "Sandbox", signedTransactionInfo: try await chain.sign(transaction))
            let jws = try await chain.sign(AppStoreTestNotification(notificationType: index == 0 ? "SUBSCRIBED" : "DID_RENEW", notificationUUID: uuid, signedDate: at, data: data))
            signed.append((uuid, #"{"signedPayload":"\#(jws)"}"#))
        }
        return (signed, t0 + Int64(count - 1) * day + 30 * day)
    }

    @Test("subscription in its own process, SIGKILLed with notifications in flight: after its restart and the App Store's retries every notification is recorded once and the ledger holds each transaction once")
    func survivesKill() async throws {
        let chain = try AppStoreTestChain()
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hub = try ChildProcess.start(
            Binaries.farelens,
            ["serve", "--services", "search,watchlist,scoring,alerts,analytics,gateway", "--data-dir", directory + "/hub", "--listen", socket, "--http-listen", "127.0.0.1:0", "--log-level", "notice"],
            environment: [:])
        defer { hub.kill() }
        let base = "http://127.0.0.1:\(try await GatewayProcessTests.port(of: hub))"
        let arguments = ["serve", "--services", "subscription", "--data-dir", directory + "/subscription", "--connect", socket, "--log-level", "notice"]
        let environment = try Self.appStoreEnvironment(chain, directory: directory + "/keys")
        var subscription = try ChildProcess.start(Binaries.farelens, arguments, environment: environment)
        defer { subscription.kill() }
        try await subscription.waitForOutput(containing: "farelens ready")
        #expect(subscription.output.get().contains("App Store notifications and restores checked"))

        let signUp = try await GatewayProcessTests.sendOnceReachable(
            .POST, base + "/v1/auth/signup", json: #"{"email":"ana@example.com","password":"correct horse battery","time_zone":"Europe/Lisbon"}"#)
        #expect(signUp.status == 201, "\(signUp.body)")
        let userID = try #require((signUp.body["user"] as? [String: Any])?["user_id"] as? String)
        let access = try #require(signUp.body["access_token"] as? String)
        let token = try #require((signUp.body["user"] as? [String: Any])?["app_account_token"] as? String, "\(signUp.body)")
        let (notifications, lastExpiry) = try await Self.notifications(chain, token: token, count: 40)

        // Eight senders, each sending the next notification once its last is answered; the sender whose
        // answer is the tenth kills the process there and then, so the rest meet the kill or a dead
        // process, however fast the machine answers.
        let answered = Locked<Set<String>>([])
        let inFlightAtKill = Locked(0)
        let next = Locked(0)
        let victim = subscription
        try await withThrowingTaskGroup(of: Void.self) { group in
            let inFlight = Locked(0)
            for _ in 0..<8 {
                group.addTask {
                    while true {
                        var index = 0
                        next.update { count in
                            index = count
                            count += 1
                        }
                        guard index < notifications.count else { return }
                        let notification = notifications[index]
                        inFlight.update { $0 += 1 }
                        let reply = try? await GatewayProcessTests.send(.POST, base + "/v1/appstore/notifications", json: notification.body)
                        inFlight.update { $0 -= 1 }
                        guard reply?.status == 200 else { continue }
                        var total = 0
                        answered.update { set in
                            set.insert(notification.uuid)
                            total = set.count
                        }
                        if total == 10 {
                            inFlightAtKill.set(inFlight.get())
                            victim.kill()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(answered.get().count < notifications.count, "the kill cut some notifications off")
        subscription = try ChildProcess.start(Binaries.farelens, arguments, environment: environment)
        try await subscription.waitForOutput(containing: "farelens ready")

        // The App Store's retries: every notification not answered 200, and (as a lost answer looks the same) every one answered too.
        for notification in notifications {
            try await waitUntil("notification \(notification.uuid) answered 200", limit: .seconds(30)) {
                (try? await GatewayProcessTests.send(.POST, base + "/v1/appstore/notifications", json: notification.body))?.status == 200
            }
        }
        let listed = try await ChildProcess.run(Binaries.farelensctl, ["appstore", "notifications", "--limit", "500", "--json", "--socket", socket])
        #expect(listed.status == 0, "\(listed.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])["notifications"] as? [[String: Any]]
        let uuids = (rows ?? []).compactMap { $0["notification_uuid"] as? String }
        #expect(uuids.count == notifications.count && Set(uuids) == Set(notifications.map(\.uuid)), "each notification recorded once")
        #expect((rows ?? []).allSatisfy { ["STORE_NOTIFICATION_OUTCOME_APPLIED", "STORE_NOTIFICATION_OUTCOME_STALE"].contains($0["outcome"] as? String) })
        #expect((rows ?? []).allSatisfy { $0["user_id"] as? String == userID })
        let me = try await GatewayProcessTests.send(.GET, base + "/v1/me", token: access)
        let user = me.body["user"] as? [String: Any]
        #expect(user?["tier"] as? String == "PRO", "\(me.body)")
        #expect(user?["paid_until_unix_ms"] as? String == "\(lastExpiry)", "the latest renewal's expiry, whatever order they were applied in: \(me.body)")
        Swift.print("payments crash: \(answered.get().count) of \(notifications.count) answered before the kill, \(inFlightAtKill.get()) in flight at it")
    }
}
