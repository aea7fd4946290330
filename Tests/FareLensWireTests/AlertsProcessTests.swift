import FareLensTesting
import Foundation
import Testing

/// The alerts outbox across a real crash: an alert accepted into the outbox
/// while the webhook receiver fails is delivered once after the alerts
/// process is killed with SIGKILL and started again.
@Suite("Alerts across a crash", .serialized)
struct AlertsProcessTests {
    /// A whsec_ secret of 32 bytes (test value, not a real credential).
    static let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()

    /// A zone where it is now between 09:00 and 19:00, so the alert is not held for quiet hours whenever the test runs.
    static func daytimeZone() -> String {
        let zones = ["UTC", "Asia/Tokyo", "America/New_York", "Asia/Kolkata", "America/Los_Angeles", "Pacific/Honolulu", "Europe/Berlin", "Australia/Sydney"]
        let now = Date()
        return zones.first { name in
            guard let zone = TimeZone(identifier: name) else { return false }
            let local = (Int(now.timeIntervalSince1970) + zone.secondsFromGMT(for: now)) % 86_400 / 3_600
            return (9..<19).contains(local)
        } ?? "UTC"
    }

    @Test("a threshold alert accepted while the receiver answers 503 survives kill -9 of the alerts process and reaches the receiver exactly once after restart, under the same webhook-id")
    func outboxSurvivesKill() async throws {
        let accepting = Locked(false)
        let received = Locked<[(id: String, status: Int)]>([])
        let receiver = StubHTTPServer { request in
            let status = accepting.get() ? 200 : 503
            received.update { $0.append((request.header("webhook-id") ?? "", status)) }
            return StubResponse(status: status)
        }
        let url = try await receiver.start() + "/hooks/farelens"
        defer { Task { try? await receiver.stop() } }

        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let alertsArguments = ["serve", "--services", "alerts", "--data-dir", directory + "/alerts", "--connect", socket, "--log-level", "error"]
        let environment = ["FARELENS_ALERTS_WEBHOOK_URL": url, "FARELENS_ALERTS_WEBHOOK_SECRETS": Self.secret]
        let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", "search,subscription,watchlist", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"])
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")
        var alerts = try ChildProcess.start(Binaries.farelens, alertsArguments, environment: environment)
        defer { alerts.kill() }
        try await alerts.waitForOutput(containing: "farelens ready")
        _ = try await meshStatus(socket) { status in status.count == 2 && status.allSatisfy(\.connected) }

        func ctl(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await ChildProcess.run(Binaries.farelensctl, arguments + ["--socket", socket])
        }
        let created = try await ctl(["users", "create", "--email", "k@example.com", "--time-zone", Self.daytimeZone(), "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let user = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let from = ServiceProcessTests.isoDate(daysFromNow: 40), to = ServiceProcessTests.isoDate(daysFromNow: 47)
        // The simulated market prices a trip from New York in USD (the origin's currency); a threshold in another currency never crosses.
        let added = try await ctl(["watchlists", "add", "--user", user, "JFK", "CDG", "--from", from, "--to", to, "--threshold", "99999.00USD", "--json"])
        #expect(added.status == 0, "\(added.stderr)")
        let watchlist = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let checked = try await ctl(["watchlists", "check", "--user", user, watchlist])
        #expect(checked.status == 0, "\(checked.stderr)")

        // Accepted into the outbox: the receiver saw its first attempt (and answered 503).
        try await waitUntil("the first attempt reached the receiver", limit: .seconds(20)) { !received.get().isEmpty }
        let alertID = received.get()[0].id
        #expect(alertID.hasPrefix("a"))
        alerts.kill()
        accepting.set(true)
        alerts = try ChildProcess.start(Binaries.farelens, alertsArguments, environment: environment)
        try await alerts.waitForOutput(containing: "farelens ready")
        // The retry is due 10 s (±20%) after the first attempt.
        try await waitUntil("the alert was delivered after the restart", limit: .seconds(40)) { received.get().contains { $0.status == 200 } }
        try await Task.sleep(for: .seconds(2))  // safe: a bounded window in which a duplicate would show
        let deliveries = received.get().filter { $0.status == 200 }
        #expect(deliveries.count == 1)
        #expect(deliveries.first?.id == alertID)
        #expect(Set(received.get().map(\.id)) == [alertID])

        let history = try await ctl(["alerts", "history", "--user", user, "--json"])
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.contains("DELIVERED"), "\(history.stdout)")
        // Keys in snake_case, like every other --json output of farelensctl.
        #expect(history.stdout.contains(#""decided_at_unix_ms""#) && !history.stdout.contains("decidedAtUnixMs"), "\(history.stdout)")
    }
}
