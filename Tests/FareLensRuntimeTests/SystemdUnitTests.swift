import FareLensTesting
import Foundation
import Testing

/// The systemd units in `ops/systemd/`: valid for systemd, and their
/// commands start the mesh they describe (docs/runbook.md).
@Suite("systemd units", .serialized)
struct SystemdUnitTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let unitDirectory = repository.appendingPathComponent("ops/systemd")
    static let units = ["farelens.service", "farelens-hub.service", "farelens-accounts.service", "farelens-alerts.service"]

    static func text(_ unit: String) throws -> String {
        try String(contentsOf: unitDirectory.appendingPathComponent(unit), encoding: .utf8)
    }

    /// `systemd-analyze verify` of `units` (name → text) in a scratch directory: its exit status and everything it printed.
    static func verify(_ units: [String: String]) async throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-units-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in units {
            // verify needs ExecStart's binary to exist: the one just built.
            let local = text.replacingOccurrences(of: "/usr/local/bin/farelens", with: NodeBinaries.farelens)
            try local.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let finished = try await FinishedProcess.run(
            "/usr/bin/env", ["systemd-analyze", "verify"] + units.keys.sorted().map { directory.appendingPathComponent($0).path }, mergingOutput: true,
            limit: .seconds(60))
        return (finished.status, finished.stdout)
    }

    @Test("systemd-analyze verify accepts every unit without a warning, and does warn about a misspelt directive")
    func verified() async throws {
        var texts: [String: String] = [:]
        for unit in Self.units { texts[unit] = try Self.text(unit) }
        let result = try await Self.verify(texts)
        #expect(result.status == 0 && result.output.isEmpty, "\(result.output)")
        for (unit, text) in texts {
            for directive in ["User=farelens", "Restart=on-failure", "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/farelens /run/farelens"] {
                #expect(text.contains("\n\(directive)\n"), "\(unit) lacks \(directive)")
            }
        }
        // The check can fail: one letter wrong is reported.
        var broken = texts
        broken["farelens.service"] = texts["farelens.service"]?.replacingOccurrences(of: "NoNewPrivileges=yes", with: "NoNewPrivilegez=yes")
        #expect(try await Self.verify(broken).output.contains("Unknown key 'NoNewPrivilegez'"))
    }

    /// The arguments of a unit's `ExecStart=farelens serve …`, with its directories moved under `root`.
    static func arguments(_ unit: String, root: String) throws -> [String] {
        let line = try #require(try text(unit).split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let words = line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(words.prefix(2) == ["/usr/local/bin/farelens", "serve"])
        return words.dropFirst(2).map { $0.replacingOccurrences(of: "/var/lib/farelens", with: root + "/lib").replacingOccurrences(of: "/run/farelens", with: root + "/run") }
    }

    @Test("the units' own commands start the all-in-one node, and the hub and two spokes of the three-way split")
    func commandsRun() async throws {
        let root = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        let single = try NodeProcess.start(try Self.arguments("farelens.service", root: root) + ["--log-level", "error"])
        defer { single.kill() }
        try await single.waitForOutput(containing: "farelens ready: node=farelens")
        let all = try await farelensctl(["status", "--socket", root + "/run/farelens.sock", "--json"])
        #expect(all.status == 0 && all.stdout.contains("\"node\" : \"farelens\""), "\(all.stderr)")
        // No search.exchangeRates.url: the shipped 2024 snapshot, stale, a warning and still healthy (exit 0).
        let rates = (try? JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])?["exchange_rates"] as? [String: Any]
        #expect(rates?["stale"] as? Bool == true && rates?["date"] as? String == "2024-01-04", "\(all.stdout)")
        let table = try await farelensctl(["status", "--socket", root + "/run/farelens.sock"])
        #expect(table.status == 0 && table.stdout.contains("warning: exchange rates of 2024-01-04"), "\(table.stdout)")
        try await single.terminate()

        var split: [NodeProcess] = []
        defer { split.forEach { $0.kill() } }
        for unit in ["farelens-hub.service", "farelens-accounts.service", "farelens-alerts.service"] {
            let node = try NodeProcess.start(try Self.arguments(unit, root: root) + ["--log-level", "error"])
            split.append(node)
            try await node.waitForOutput(containing: "farelens ready")
        }
        try await waitUntil("the hub lists three connected nodes", limit: .seconds(30)) {
            guard let status = try? await farelensctl(["status", "--socket", root + "/run/hub.sock", "--json"]) else { return false }
            return ["\"hub\"", "\"accounts\"", "\"alerts\""].allSatisfy(status.stdout.contains) && !status.stdout.contains("\"connected\" : false")
        }
    }
}

/// `docker/compose.yaml`: no container engine runs here, so the commands its
/// services and health checks run are run on the local build instead.
@Suite("Compose file commands")
struct ComposeCommandsTests {
    @Test("every compose service's command starts a node and its health check passes, in its three profiles — one process, split over a socket, and a NATS cluster where every node sees every service (ops/check-packaging.sh --commands)")
    func composeCommands() async throws {
        let finished = try await FinishedProcess.run(
            "/bin/bash", [SystemdUnitTests.repository.appendingPathComponent("ops/check-packaging.sh").path, "--commands"], mergingOutput: true,
            limit: .seconds(300))
        let output = finished.stdout
        #expect(finished.status == 0 && output.contains("check-packaging: ok"), "\(output)")
        #expect(output.contains("split/alerts: its command started a node and its health check passed"))
        #expect(output.contains("cluster/api: its command started a node and its health check passed"))
        #expect(output.contains("cluster: every node sees alerts,analytics,gateway,scoring,search,subscription,watchlist over NATS"))
    }
}
