import FareLensTesting
import Foundation
import Testing

/// The demo's week with push on (issue #62, proof): `farelens serve --demo`
/// fast-forwarded, a phone registered for each demo traveller, and the APNs
/// stub's record compared with every decision the alerts service says it
/// pushed.
@Suite("Demo week with push", .serialized)
struct DemoPushProcessTests {
    struct Pushed: Hashable {
        let alertID: String
        let token: String
    }

    @Test("every push the history records as delivered reached the stub once (by alert and phone), the stub received nothing else, every pushed alert was a sent decision, and at most one per night broke quiet hours (the exceptional deal)")
    func demoWeek() async throws {
        let stub = try await APNsStub(keyID: PushProcessTests.keyID, teamID: PushProcessTests.teamID, topic: PushProcessTests.topic)
        let baseURL = try await stub.start()
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/demo.sock"
        let environment = try PushProcessTests.apnsEnvironment(stub, baseURL: baseURL, directory: directory + "/keys")
            .merging(["FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS": "21600"]) { _, new in new }
        let demo = try ChildProcess.start(
            Binaries.farelens, ["serve", "--demo", "--demo-speed", "24", "--data-dir", directory + "/demo", "--listen", socket, "--log-level", "error"],
            environment: environment)
        defer { demo.kill() }
        try await demo.waitForOutput(containing: "demo: Sam (Sydney, Free", limit: .seconds(60))
        let users = demo.output.get().matches(of: /\) is (u-[0-9a-f]+), watching/).map { String($0.1) }
        #expect(users.count == 4, "\(demo.output.get())")
        var tokens: [String: String] = [:]
        for (index, user) in users.enumerated() {
            let token = String(repeating: String(format: "%08x", 0xD3_0000 + index), count: 8)
            tokens[user] = token
            let added = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "alerts", "devices", "--user", user, "--add", token])
            #expect(added.status == 0, "\(added.stderr)")
        }

        /// (alert, phone) the history says were pushed and delivered; the decisions behind them; whether any push is still on its way.
        func history() async throws -> (delivered: Set<Pushed>, records: [String: [String: Any]], pending: Bool) {
            var delivered = Set<Pushed>()
            var records: [String: [String: Any]] = [:]
            var pending = false
            for user in users {
                let run = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "alerts", "history", "--user", user, "--limit", "500", "--json"])
                guard run.status == 0 else { throw WaitTimedOut(what: "alerts history of \(user): \(run.stderr)") }
                let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
                for alert in object?["alerts"] as? [[String: Any]] ?? [] {
                    let id = alert["alert_id"] as? String ?? ""
                    for delivery in alert["deliveries"] as? [[String: Any]] ?? [] where delivery["channel"] as? String == "PUSH" {
                        records[id] = alert
                        switch delivery["state"] as? String {
                        case "DELIVERED": delivered.insert(Pushed(alertID: id, token: delivery["device_token"] as? String ?? ""))
                        case "PENDING": pending = true
                        default: break
                        }
                    }
                }
            }
            return (delivered, records, pending)
        }

        var snapshot: (delivered: Set<Pushed>, records: [String: [String: Any]], pending: Bool) = ([], [:], true)
        try await waitUntil("eight pushes delivered", limit: .seconds(120)) {
            snapshot = (try? await history()) ?? snapshot
            if snapshot.delivered.count >= 8 { return true }
            try? await Task.sleep(for: .milliseconds(500))  // safe: paces the polling of farelensctl; the bound is waitUntil's
            return false
        }
        // Stop the demo so nothing more is pushed, then compare the two records as they stand.
        demo.kill()
        snapshot = try await {
            // The node is gone: read its history from a second life on the same data, without the demo's director.
            let reader = try ChildProcess.start(
                Binaries.farelens, ["serve", "--data-dir", directory + "/demo", "--listen", socket, "--log-level", "error", "--services", "alerts,subscription"])
            defer { reader.kill() }
            try await reader.waitForOutput(containing: "farelens ready")
            return try await history()
        }()
        await stub.stop()

        // Silent pushes (watchlist updates) are not alerts: each reached the stub once, by its apns-id.
        let silent = stub.delivered.filter { $0.headers["apns-push-type"] == "background" }
        #expect(silent.count == Set(silent.map { $0.headers["apns-id"] }).count, "a silent push reached the stub twice")
        let received = stub.delivered.filter { $0.headers["apns-push-type"] == "alert" }.map { push -> Pushed in
            let body = (try? JSONSerialization.jsonObject(with: push.body)) as? [String: Any]
            return Pushed(alertID: body?["alert_id"] as? String ?? "", token: push.token)
        }
        let twice = Dictionary(grouping: received, by: { $0 }).filter { $0.value.count > 1 }.keys
        let twiceDetail = twice.map { push in
            let requests = stub.requests.filter { $0.token == push.token && $0.body.range(of: Data(push.alertID.utf8)) != nil }
            let deliveries = (snapshot.records[push.alertID]?["deliveries"] as? [[String: Any]] ?? []).filter { $0["device_token"] as? String == push.token }
            return "\(push.alertID) → \(requests.map { "\($0.headers["apns-id"] ?? "") \($0.reply)" }), recorded: \(deliveries)"
        }
        #expect(twice.isEmpty, "a push reached the stub twice: \(twiceDetail)")
        // The stub may have answered a push whose outcome the killed node had not recorded yet: recorded ⊆ received, and the rest at most in flight.
        #expect(snapshot.delivered.isSubset(of: Set(received)), "recorded as delivered, never received: \(snapshot.delivered.subtracting(received))")
        #expect(Set(received).subtracting(snapshot.delivered).count <= 16, "received but not recorded: more than one pass in flight")
        #expect(Set(received.map(\.token)).isSubset(of: Set(tokens.values)))
        for push in received {
            let record = snapshot.records[push.alertID]
            #expect(record?["decision"] as? String == "SENT", "pushed but not a sent decision: \(push.alertID) \(record ?? [:])")
            #expect(tokens[record?["user_id"] as? String ?? ""] == push.token, "pushed to another user's phone")
        }
        // Quiet hours: the only pushes decided in them are the one exceptional deal a night.
        let exceptions = snapshot.records.values.filter { ($0["reason"] as? String ?? "").hasPrefix("Quiet hours, but") }
        let perNight = Dictionary(grouping: exceptions) { "\($0["user_id"] ?? "")/\((($0["decided_at_unix_ms"] as? String).flatMap(Int64.init) ?? 0) / 86_400_000)" }
        #expect(perNight.values.allSatisfy { $0.count <= 2 }, "more than one quiet-hours exception in a night")
    }
}
