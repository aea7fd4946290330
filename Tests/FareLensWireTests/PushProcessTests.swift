import FareLensTesting
import Foundation
import Testing

/// Push end to end through the real executables, the way the app uses it:
/// sign up and register two phones through the gateway, a watchlist whose
/// check crosses its threshold, and the APNs stub (in this test process)
/// receiving the alert once per phone — in one node, and with alerts in a
/// process of its own killed with SIGKILL while it holds undelivered pushes.
@Suite("Push across processes and a crash", .serialized)
struct PushProcessTests {
    static let devices = [String(repeating: "ab12cd34", count: 8), String(repeating: "0f1e2d3c", count: 8)]
    static let keyID = "ABC123DEFG", teamID = "TEAM123456", topic = "com.farelens.app"

    /// The alerts service's push keys, reaching `stub`: its key and certificate written into `directory`.
    static func apnsEnvironment(_ stub: APNsStub, baseURL: String, directory: String) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = directory + "/AuthKey_TEST.p8", roots = directory + "/apns-stub.pem"
        try stub.providerKeyPEM.write(toFile: key, atomically: true, encoding: .utf8)
        try stub.certificatePEM.write(toFile: roots, atomically: true, encoding: .utf8)
        return [
            "FARELENS_ALERTS_APNS_KEY_PATH": key, "FARELENS_ALERTS_APNS_KEY_ID": keyID, "FARELENS_ALERTS_APNS_TEAM_ID": teamID,
            "FARELENS_ALERTS_APNS_TOPIC": topic, "FARELENS_ALERTS_APNS_BASE_URL": baseURL, "FARELENS_ALERTS_APNS_TRUST_ROOTS": roots,
            // A failed push is retried a second later (the default backoff starts at 10 s).
            "FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS": "1",
        ]
    }

    /// Signs up (in a zone where it is daytime), registers both devices, and adds and checks a watchlist whose threshold any fare crosses.
    static func traveller(_ base: String) async throws -> String {
        let zone = AlertsProcessTests.daytimeZone()
        let signUp = try await GatewayProcessTests.sendOnceReachable(
            .POST, base + "/v1/auth/signup", json: #"{"email":"ana@example.com","password":"correct horse battery","time_zone":"\#(zone)"}"#)
        #expect(signUp.status == 201, "\(signUp.body)")
        let token = try #require(signUp.body["access_token"] as? String)
        for device in devices {
            let registered = try await GatewayProcessTests.send(.PUT, base + "/v1/me/devices/\(device)", token: token, json: #"{"app_version":"1.4.0"}"#)
            #expect(registered.status == 201, "\(registered.body)")
        }
        let created = try await GatewayProcessTests.send(
            .POST, base + "/v1/me/watchlists", token: token,
            json: #"{"origin":"JFK","destination":"CDG","dates":{"flexible":{}},"price_threshold":{"currency":"USD","minor_units":"9999900"}}"#)
        #expect(created.status == 201, "\(created.body)")
        let id = try #require((created.body["watchlist"] as? [String: Any])?["watchlist_id"] as? String)
        let checked = try await GatewayProcessTests.send(.POST, base + "/v1/me/watchlists/\(id)/check", token: token)
        #expect(checked.status == 200, "\(checked.body)")
        return token
    }

    @Test("one node: an alert reaches each of the user's two phones once, and the history shows both deliveries")
    func oneNode() async throws {
        let stub = try await APNsStub(keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic)
        let baseURL = try await stub.start()
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let environment = try Self.apnsEnvironment(stub, baseURL: baseURL, directory: directory + "/keys").merging(["FARELENS_SUBSCRIPTION_BCRYPT_COST": "4"]) { _, new in new }
        let node = try ChildProcess.start(
            Binaries.farelens, ["serve", "--data-dir", directory + "/node", "--listen", directory + "/node.sock", "--http-listen", "127.0.0.1:0", "--log-level", "notice"],
            environment: environment)
        defer { node.kill() }
        let base = "http://127.0.0.1:\(try await GatewayProcessTests.port(of: node))"
        #expect(node.output.get().contains("APNs push channel on"))
        let token = try await Self.traveller(base)
        // Alerts only: the watchlist's creation and its check also went out as silent (background) pushes.
        let alertPushes = { stub.delivered.filter { $0.headers["apns-push-type"] == "alert" } }
        try await waitUntil("both phones got the alert", limit: .seconds(40)) { Set(alertPushes().map(\.token)).count == 2 }
        let pushed = alertPushes()
        #expect(pushed.count == 2 && Set(pushed.map(\.token)) == Set(Self.devices))
        #expect(Set(pushed.map { $0.headers["apns-id"] }).count == 2)
        let body = try #require(try JSONSerialization.jsonObject(with: pushed[0].body) as? [String: Any])
        #expect(body["kind"] as? String == "threshold_crossed" && body["route"] as? String == "JFK-CDG")
        try await waitUntil("the history shows both deliveries", limit: .seconds(20)) {
            let history = try? await GatewayProcessTests.send(.GET, base + "/v1/me/alerts", token: token)
            let alerts = history?.body["alerts"] as? [[String: Any]] ?? []
            let deliveries = alerts.first?["deliveries"] as? [[String: Any]] ?? []
            return deliveries.filter { $0["channel"] as? String == "PUSH" && $0["state"] as? String == "DELIVERED" }.count == 2
        }
        await stub.stop()
    }

    @Test("alerts in its own process, killed with SIGKILL while both pushes wait for a retry: after its restart each (alert, phone) reaches APNs once, under the apns-id of its first attempt")
    func survivesKill() async throws {
        let stub = try await APNsStub(keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic)
        let baseURL = try await stub.start()
        for device in Self.devices { stub.script([.error(status: 503, reason: "ServiceUnavailable")], for: device, pushType: "alert") }
        // The alert pushes only: the watchlist's creation and check also go out as silent (background) pushes.
        let alertRequests = { stub.requests.filter { $0.headers["apns-push-type"] == "alert" } }
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hub = try ChildProcess.start(
            Binaries.farelens,
            ["serve", "--services", "search,subscription,watchlist,gateway", "--data-dir", directory + "/hub", "--listen", socket, "--http-listen", "127.0.0.1:0", "--log-level", "notice"],
            environment: ["FARELENS_SUBSCRIPTION_BCRYPT_COST": "4"])
        defer { hub.kill() }
        let base = "http://127.0.0.1:\(try await GatewayProcessTests.port(of: hub))"
        let alertsArguments = ["serve", "--services", "alerts", "--data-dir", directory + "/alerts", "--connect", socket, "--log-level", "error"]
        let environment = try Self.apnsEnvironment(stub, baseURL: baseURL, directory: directory + "/keys")
        var alerts = try ChildProcess.start(Binaries.farelens, alertsArguments, environment: environment)
        defer { alerts.kill() }
        try await alerts.waitForOutput(containing: "farelens ready")
        _ = try await meshStatus(socket) { status in status.count == 2 && status.allSatisfy(\.connected) }
        _ = try await Self.traveller(base)

        // Both first attempts answered 503: the pushes wait in the alerts process's outbox.
        try await waitUntil("both first attempts reached the stub", limit: .seconds(40)) { alertRequests().count >= 2 }
        alerts.kill()
        let firstIDs = Dictionary(alertRequests().map { ($0.token, $0.headers["apns-id"] ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(alertRequests().allSatisfy { $0.reply != .ok })
        alerts = try ChildProcess.start(Binaries.farelens, alertsArguments, environment: environment)
        try await alerts.waitForOutput(containing: "farelens ready")
        try await waitUntil("both pushes delivered after the restart", limit: .seconds(40)) { alertRequests().filter { $0.reply == .ok && !$0.unheard }.count >= 2 }
        try await Task.sleep(for: .seconds(2))  // safe: a bounded window in which a duplicate would show
        let delivered = alertRequests().filter { $0.reply == .ok && !$0.unheard }
        #expect(delivered.count == 2, "\(delivered.map(\.token))")
        #expect(Set(delivered.map(\.token)) == Set(Self.devices))
        for push in delivered { #expect(push.headers["apns-id"] == firstIDs[push.token], "the retry kept the first attempt's apns-id") }
        await stub.stop()
    }
}
