import FareLensTesting
import Foundation
import Testing

/// The demo's webhooks as a third party receives them (issue #58, proof of
/// item 1): `farelens serve --demo` pointed at a receiver written from
/// docs/webhooks.md alone, Tests/Scripts/webhook_receiver.py, which verifies
/// every request with the reference Standard Webhooks library (PyPI
/// `standardwebhooks`, ops/install-deps.sh) and its default 5-minute
/// timestamp tolerance. The demo's business clock runs days ahead of real
/// time; the wire must not.
@Suite("Demo webhooks verified by a third party", .serialized)
struct WebhookReceiverProcessTests {
    /// A whsec_ secret of 32 bytes (test value, not a real credential).
    static let secret = "whsec_" + Data((0 ..< 32).map { UInt8(($0 * 37 + 11) % 256) }).base64EncodedString()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let receiverScript = repository.appendingPathComponent("Tests/Scripts/webhook_receiver.py").path

    /// `FARELENS_PYTHON` (ops/test.sh exports the venv's), else the venv
    /// ops/install-deps.sh keeps, else `python3` on PATH (as GatewayTests'
    /// `PythonTools`, which this target cannot import).
    static var python: String {
        if let configured = ProcessInfo.processInfo.environment["FARELENS_PYTHON"], !configured.isEmpty,
            FileManager.default.isExecutableFile(atPath: configured)
        {
            return configured
        }
        let venv = repository.appendingPathComponent(".build/python-venv/bin/python").path
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/python3"
    }

    /// One request as the receiver recorded it.
    struct Received: Decodable {
        let id: String?
        let verified: Bool
        let error: String?
        let type: String?
    }

    /// One alert as `farelensctl alerts history --json` prints it.
    struct Alert {
        let id: String
        let state: String
        let error: String
    }

    /// Delivery states of an alert that was accepted for delivery and will not be attempted again: it either
    /// reached every channel, or it is missing at one (the webhook: the log channel always writes).
    static let delivered = "DELIVERED"
    static let missing: Set<String> = ["DEAD_LETTERED", "ENDPOINT_DISABLED", "MAYBE_DELIVERED"]

    @Test("every alert the demo delivers over the webhook is verified by the reference Standard Webhooks library (its 5-minute tolerance), none is dead-lettered, and no request fails verification, though the demo's clock runs days ahead of real time")
    func demoWebhooksVerify() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/demo.sock"
        let received = directory + "/received.jsonl"

        let receiver = try ChildProcess.start(Self.python, [Self.receiverScript, received], environment: ["WEBHOOK_SECRET": Self.secret])
        defer { receiver.kill() }
        try await waitUntil("the receiver prints its port, or exits", limit: .seconds(30)) {
            receiver.output.get().firstMatch(of: /^[0-9]+\n/) != nil || !receiver.process.isRunning
        }
        let port = try #require(receiver.output.get().firstMatch(of: /^([0-9]+)\n/)?.1, "receiver (\(Self.python)): \(receiver.output.get())")

        // 24 simulated hours per real second, as the other demo tests: the business clock is days ahead within seconds.
        let demo = try ChildProcess.start(
            Binaries.farelens, ["serve", "--demo", "--demo-speed", "24", "--data-dir", directory + "/demo", "--listen", socket, "--log-level", "error"],
            environment: [
                "FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS": "21600",
                "FARELENS_ALERTS_WEBHOOK_URL": "http://127.0.0.1:\(port)/hooks/farelens",
                "FARELENS_ALERTS_WEBHOOK_SECRETS": Self.secret,
                "FARELENS_ALERTS_LOG_PATH": directory + "/alerts.jsonl",
            ])
        defer { demo.kill() }
        try await demo.waitForOutput(containing: "demo: Sam (Sydney, Free", limit: .seconds(60))
        let users = demo.output.get().matches(of: /\) is (u-[0-9a-f]+), watching/).map { String($0.1) }
        #expect(users.count == 4, "\(demo.output.get())")

        func alerts() async throws -> [Alert] {
            var all: [Alert] = []
            for user in users {
                let history = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "alerts", "history", "--user", user, "--limit", "500", "--json"])
                guard history.status == 0 else { throw WaitTimedOut(what: "alerts history of \(user): \(history.stderr)") }
                let object = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any]
                for alert in object?["alerts"] as? [[String: Any]] ?? [] {
                    all.append(Alert(
                        id: alert["alert_id"] as? String ?? "", state: alert["delivery_state"] as? String ?? "",
                        error: alert["delivery_error"] as? String ?? ""))
                }
            }
            return all
        }
        func requests() throws -> [Received] {
            guard let text = try? String(contentsOfFile: received, encoding: .utf8) else { return [] }
            return try text.split(separator: "\n").map { try JSONDecoder().decode(Received.self, from: Data($0.utf8)) }
        }

        // Bounded: until five alerts have been through the webhook for good (delivered, or given up on).
        var snapshot: [Alert] = []
        do {
            try await waitUntil("five alerts delivered or given up on", limit: .seconds(120)) {
                snapshot = (try? await alerts()) ?? snapshot
                if snapshot.filter({ $0.state == Self.delivered || Self.missing.contains($0.state) }).count >= 5 { return true }
                try? await Task.sleep(for: .milliseconds(500))  // safe: paces the polling of farelensctl; the bound is waitUntil's
                return false
            }
        } catch {
            throw WaitTimedOut(what: "five alerts delivered or given up on (at the end: \(snapshot.map { "\($0.id) \($0.state)" }); demo: \(demo.output.get()))")
        }
        // The receiver writes its line before it answers, so every alert recorded as delivered has its line by now.
        let lines = try requests()
        let verified = Set(lines.filter(\.verified).compactMap(\.id))

        let failed = lines.filter { !$0.verified }
        let failures = Dictionary(grouping: failed, by: { $0.error ?? "?" }).map { "\($0.value.count) × \($0.key)" }.sorted()
        #expect(failed.count == 0, "\(failed.count) of \(lines.count) webhook requests failed the reference library's verification: \(failures)")

        let givenUp = snapshot.filter { Self.missing.contains($0.state) }
        #expect(givenUp.count == 0, "sent but missing at the receiver: \(givenUp.count) alerts, e.g. \(givenUp.prefix(3).map { "\($0.id) \($0.state): \($0.error)" })")

        let delivered = snapshot.filter { $0.state == Self.delivered }
        let unverified = delivered.filter { !verified.contains($0.id) }.map(\.id)
        #expect(delivered.count > 0, "no alert was delivered (\(snapshot.count) decisions)")
        #expect(unverified == [], "recorded as delivered, never verified at the receiver: \(unverified)")
    }
}
