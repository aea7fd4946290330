import FareLensTesting
import Foundation
import Testing

/// `farelensctl` as a script or a health check runs it: in a pipe that
/// closes, against a mesh with a node away, and with `--json` when it fails
/// (issue #63).
@Suite("farelensctl in pipes, health checks and scripts", .serialized)
struct CtlProcessTests {
    @Test("`events tail | head -1`: the tail ends quietly with status 0 when head has its line (it crashed on 'try!' with Broken pipe)")
    func tailIntoAClosedPipe() async throws {
        let nodes = try await ServiceProcessTests.ThreeNodes.start(hub: "search", spokes: [])
        defer { nodes.kill() }
        let directory = URL(fileURLWithPath: nodes.socket).deletingLastPathComponent().path
        // A real pipe to a real head; bash reports the tail's own status. The tail stops after 60 s whatever happens.
        let script = #"""
            "$CTL" --socket "$SOCKET" events tail --seconds 60 2>"$DIR/tail.err" | head -1 >"$DIR/head.out"
            echo "${PIPESTATUS[0]}" >"$DIR/tail.status"
            """#
        let pipeline = try ChildProcess.start("/bin/bash", ["-c", script], environment: ["CTL": Binaries.farelensctl, "SOCKET": nodes.socket, "DIR": directory])
        defer { pipeline.kill() }
        let statusFile = directory + "/tail.status"
        // Each search publishes several events: head takes the first, the tail's next write finds the pipe closed.
        var searches = 0
        try await waitUntil("the pipeline ends (searches sent: \(searches))", limit: .seconds(90)) {
            if FileManager.default.fileExists(atPath: statusFile), let text = try? String(contentsOfFile: statusFile, encoding: .utf8), !text.isEmpty { return true }
            searches += 1
            _ = try? await nodes.ctl(["search", "LHR", "JFK", Self.inAMonth(), "--json"])
            return false
        }
        let status = try String(contentsOfFile: statusFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let stderr = (try? String(contentsOfFile: directory + "/tail.err", encoding: .utf8)) ?? ""
        let line = (try? String(contentsOfFile: directory + "/head.out", encoding: .utf8)) ?? ""
        #expect(status == "0", "the tail's exit status \(status); stderr: \(stderr.prefix(400))")
        #expect(stderr.isEmpty, "\(stderr.prefix(400))")
        #expect(line.hasPrefix("search."), "head's line: \(line)")
    }

    @Test("`status` exits 0 while every node is up, 3 with a spoke killed (SIGKILL) and says which node and services are away; --expect names a service that must be up")
    func statusExitCodes() async throws {
        var nodes = try await ServiceProcessTests.ThreeNodes.start(hub: "search", spokes: ["subscription", "watchlist"])
        defer { nodes.kill() }
        let healthy = try await nodes.ctl(["status", "--json"])
        #expect(healthy.status == 0, "\(healthy.stdout) \(healthy.stderr)")
        #expect(try Self.object(healthy.stdout)["healthy"] as? Bool == true)
        let expecting = try await nodes.ctl(["status", "--expect", "search,gateway", "--json"])
        #expect(expecting.status == 3, "no node runs the gateway here: \(expecting.stdout)")
        #expect(try Self.object(expecting.stdout)["missing_services"] as? [String] == ["gateway"])

        let spoke = nodes.processes.removeLast()
        spoke.kill()
        _ = try await meshStatus(nodes.socket) { status in status.contains { !$0.connected } }
        let away = try await nodes.ctl(["status", "--json"])
        #expect(away.status == 3, "\(away.stdout) \(away.stderr)")
        let verdict = try Self.object(away.stdout)
        #expect(verdict["healthy"] as? Bool == false)
        #expect((verdict["away_nodes"] as? [String])?.count == 1)
        #expect(verdict["missing_services"] as? [String] == ["watchlist"])
        let text = try await nodes.ctl(["status"])
        #expect(text.status == 3 && text.stdout.contains("DEGRADED (exit 3)") && text.stdout.contains("no connected node for: watchlist"), "\(text.stdout)")
    }

    @Test("with --json every failure is one JSON object on stdout with its code and field, and the same exit status as without")
    func jsonErrors() async throws {
        let nodes = try await ServiceProcessTests.ThreeNodes.start(hub: "search,scoring,subscription,watchlist", spokes: [])
        defer { nodes.kill() }
        let cases: [(arguments: [String], status: Int32, code: String, field: String?)] = [
            // The service's own error, its field named in the message.
            (["deals", "--user", "u-nobody"], 1, "unknown-user", nil),
            // Said "departure_date: is not a real calendar date" without the date.
            (["search", "LHR", "JFK", "2027-02-30"], 1, "invalid-field", "departure_date"),
            // Refused before connecting: a usage error (64) naming the option.
            (["deals", "--user", "u-1", "--limit", "-1"], 64, "usage", "--limit"),
            (["users", "show", "u-nobody"], 1, "unknown-user", nil),
        ]
        for (arguments, status, code, field) in cases {
            let json = try await nodes.ctl(arguments + ["--json"])
            let plain = try await nodes.ctl(arguments)
            #expect(json.status == status && plain.status == status, "\(arguments): \(json.status)/\(plain.status) \(json.stdout) \(plain.stderr)")
            #expect(json.stderr.isEmpty, "\(arguments): \(json.stderr)")
            let error = try #require(try Self.object(json.stdout)["error"] as? [String: Any], "\(arguments): \(json.stdout)")
            #expect(error["code"] as? String == code, "\(arguments): \(json.stdout)")
            #expect(!(error["message"] as? String ?? "").isEmpty)
            if arguments.contains("2027-02-30") { #expect((error["message"] as? String)?.contains("2027-02-30 is not a real calendar date") == true, "\(json.stdout)") }
            if let field { #expect(error["field"] as? String == field, "\(arguments): \(json.stdout)") }
            #expect(plain.stdout.isEmpty && plain.stderr.hasPrefix("farelensctl: error: ") || plain.stderr.hasPrefix("Error: "), "\(arguments): \(plain.stderr)")
        }
        // A threshold in a currency the exchange rates cannot convert JFK's USD fares into is refused at creation
        // (issue #60; KWD is not one of the ECB's reference currencies); one in EUR is compared converted.
        let created = try await nodes.ctl(["users", "create", "--email", "ctl@example.com", "--time-zone", "America/New_York", "--json"])
        let user = try #require(try Self.object(created.stdout)["id"] as? String, "\(created.stderr)")
        let dinars = try await nodes.ctl(["watchlists", "add", "--user", user, "JFK", "NRT", "--any-dates", "7-14", "--threshold", "450.000KWD", "--json"])
        #expect(dinars.status == 1)
        let refusal = try #require(try Self.object(dinars.stdout)["error"] as? [String: Any], "\(dinars.stdout)")
        #expect(refusal["code"] as? String == "unsupported-currency" && refusal["field"] as? String == "price_threshold.currency", "\(dinars.stdout)")
        #expect((refusal["message"] as? String)?.contains("fares from JFK are priced in USD") == true, "\(dinars.stdout)")
        let euros = try await nodes.ctl(["watchlists", "add", "--user", user, "JFK", "NRT", "--any-dates", "7-14", "--threshold", "450.00EUR", "--json"])
        #expect(euros.status == 0, "\(euros.stdout) \(euros.stderr)")
        // No node at all: the socket's own code.
        let nowhere = try await ChildProcess.run(Binaries.farelensctl, ["--json", "status", "--socket", nodes.socket + ".absent"])
        #expect(nowhere.status == 1)
        #expect((try Self.object(nowhere.stdout)["error"] as? [String: Any])?["code"] as? String == "socket-unavailable", "\(nowhere.stdout)")
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// A departure date a month ahead, as `search` takes it.
    static func inAMonth() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date().addingTimeInterval(30 * 86_400))
    }
}
