import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import GRDB
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

        func ctl(_ arguments: [String]) async throws -> FinishedProcess {
            try await ChildProcess.run(Binaries.farelensctl, arguments + ["--socket", socket])
        }
        let created = try await ctl(["users", "create", "--email", "k@example.com", "--time-zone", Self.daytimeZone(), "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let user = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        // No decisions yet: the list is there and empty, not a missing key (protobuf's own JSON prints `{}`).
        let none = try await ctl(["alerts", "history", "--user", user, "--json"])
        #expect(none.status == 0 && none.stdout == #"{"alerts":[]}"# + "\n", "\(none.stdout)\(none.stderr)")
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

    /// User `q<index>` as subscription's `UserPreferencesChanged` states them: in UTC, Pro (6 a day), quiet all day.
    static func heldUser(_ index: Int) -> UserPreferencesChanged {
        var event = UserPreferencesChanged()
        event.userID = "q\(index)"
        event.timeZone = "UTC"
        event.quietHours.start.hour = 0
        event.quietHours.end.hour = 23
        event.quietHours.end.minute = 59
        event.tier = .pro
        event.entitlements.immediateAlertsPerDay = 6
        event.atUnixMs = 1
        return event
    }

    /// Crossings for `users` users whose quiet hours last all day, so each is decided "held" and nothing is delivered.
    static func heldCrossing(_ index: Int, users: Int) -> ThresholdCrossed {
        var event = ThresholdCrossed()
        event.checkID = "c\(index)"
        event.userID = "q\(index % users)"
        event.watchlistID = "w\(index)"
        event.origin = "JFK"
        event.destination = ["NRT", "LAX", "SFO", "LHR"][(index / users) % 4]
        event.priceThreshold = Money(minorUnits: 70_000, currency: "USD")
        event.check.lowestPrice = Money(minorUnits: 60_000, currency: "USD")
        event.check.belowThreshold = true
        return event
    }

    @Test("crossings streamed to an alerts process killed with SIGKILL mid-stream are each decided exactly once after its restart: a batch is acknowledged only after its transaction, though the next one is prepared meanwhile; every decision's AlertDecided reaches the hub, under one id")
    func pipelinedDecisionsSurviveKill() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hubBus = makeNodeBus("hub")
        // Search's airport directory as the alerts service asks it (decisions wait for it): no code known, each names itself.
        try hubBus.serve(AirportLookupRequest.self) { _, _ in AirportLookupResponse() }
        // Analytics' view: each decision's AlertDecided, by the event's id, across both lives of the alerts process.
        let announced = Locked<[EventID: String]>([:])
        let decidedEvents = hubBus.subscribe(AlertDecided.self)
        let announcing = Task { for await delivery in decidedEvents { announced.update { $0[delivery.metadata.id] = delivery.event.alert.alertID } } }
        defer { announcing.cancel() }
        let (hub, hubTask) = try await startHub(hubBus, fastBridge(socket))
        defer { hubTask.cancel() }
        let arguments = ["serve", "--services", "alerts", "--data-dir", directory + "/alerts", "--connect", socket, "--log-level", "error"]
        var alerts = try ChildProcess.start(Binaries.farelens, arguments)
        defer { alerts.kill() }
        try await alerts.waitForOutput(containing: "farelens ready")
        let database = try DatabaseQueue(path: directory + "/alerts/alerts.sqlite")
        func decided() throws -> (rows: Int, crossings: Int) {
            try database.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COUNT(DISTINCT watchlistID) FROM alert")
                return (row?[0] ?? 0, row?[1] ?? 0)
            }
        }
        func alertIDs() throws -> Set<String> {
            try database.read { db in Set(try String.fetchAll(db, sql: "SELECT alertID FROM alert")) }
        }
        func wantsCrossings() -> Bool {
            hub.meshStatus().nodes.contains { !$0.isHub && $0.connected && $0.topicsWanted.contains(ThresholdCrossed.topic.name) }
        }
        try await waitUntil("the alerts node asked the hub for threshold crossings") { wantsCrossings() }
        // Subscription's events as the alerts service keeps its users from them: every user q0…q2999, in UTC, quiet all day.
        let users = 3_000
        for index in 0 ..< users { try await hubBus.publish(Self.heldUser(index)) }
        try await waitUntil("the alerts process keeps every user's settings", limit: .seconds(60)) {
            ((try? database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM audience_user") }) ?? 0) == users
        }
        try await hubBus.publish(Self.heldCrossing(0, users: 1))
        try await waitUntil("the first crossing was decided") { ((try? decided().rows) ?? 0) == 1 }

        let events = 30_000
        for index in 1 ..< events { try await hubBus.publish(Self.heldCrossing(index, users: users)) }
        try await waitUntil("the alerts process is mid-stream", limit: .seconds(60)) { ((try? decided().rows) ?? 0) >= 3_000 }
        alerts.kill()
        let atKill = try decided().rows
        try await waitUntil("the hub saw the alerts node go") {
            hub.meshStatus().nodes.contains { !$0.connected }
        }
        alerts = try ChildProcess.start(Binaries.farelens, arguments)
        try await alerts.waitForOutput(containing: "farelens ready")
        try await waitUntil("the restarted alerts node asked for threshold crossings") { wantsCrossings() }
        // Acknowledged means committed: once the hub holds nothing for the node, every crossing must have its decision.
        try await waitUntil("the hub holds no crossing unacknowledged", limit: .seconds(90)) {
            wantsCrossings() && hub.meshStatus().nodes.allSatisfy { $0.pendingDurableEvents == 0 }
        }
        let acknowledged = try decided()
        try await Task.sleep(for: .seconds(1))  // safe: a bounded window in which a duplicate decision would show
        let final = try decided()
        #expect(atKill < events, "the kill came mid-stream (\(atKill) decided)")
        #expect(acknowledged.crossings == events, "every acknowledged crossing was decided")
        #expect(final.rows == events, "one decision per crossing")
        #expect(final.crossings == events, "every crossing decided, none twice")
        // Decisions committed just before the kill and not yet settled are published again by the second life, under the same ids.
        let recorded = try alertIDs()
        try await waitUntil("every decision's AlertDecided reached the hub", limit: .seconds(60)) { Set(announced.get().values) == recorded }
        try await Task.sleep(for: .milliseconds(500))  // safe: a bounded window in which an AlertDecided under a second id would show
        #expect(announced.get().count == events, "one id per decision: \(announced.get().count) ids for \(events) decisions")
    }
}
