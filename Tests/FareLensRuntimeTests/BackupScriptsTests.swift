import FareLensTesting
import Foundation
import Testing

/// `ops/backup.sh` and `ops/restore.sh` against a real node (docs/runbook.md).
@Suite("Backup and restore scripts", .serialized)
struct BackupScriptsTests {
    static let ops = SystemdUnitTests.repository.appendingPathComponent("ops").path

    /// Runs a script to completion (killed after 60 s).
    static func script(_ name: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let finished = try await FinishedProcess.run(
            "/bin/bash", [ops + "/" + name] + arguments, environment: ["FARELENSCTL": NodeBinaries.farelensctl], mergingOutput: true, limit: .seconds(60))
        return (finished.status, finished.stdout)
    }

    @Test("back up a running node, refuse to restore under it, refuse a file that is not SQLite, then restore into the stopped node's data directory and start it on the restored data")
    func backupThenRestore() async throws {
        let root = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let data = root + "/data", socket = root + "/node.sock"
        let node = try NodeProcess.start(["--services", "subscription", "--node-name", "solo", "--data-dir", data, "--listen", socket, "--log-level", "error"])
        defer { node.kill() }
        try await node.waitForOutput(containing: "farelens ready")
        let created = try await farelensctl(["users", "create", "--email", "kept@example.com", "--time-zone", "UTC", "--socket", socket])
        #expect(created.status == 0, "\(created.stderr)")

        let backup = try await Self.script("backup.sh", [root + "/backups", "--socket", socket])
        #expect(backup.status == 0, "\(backup.output)")
        let made = try #require(backup.output.split(separator: "\n").last { $0.hasPrefix("backup: ") }).dropFirst("backup: ".count)
        let nodeBackup = "\(made)/solo"
        #expect(FileManager.default.fileExists(atPath: nodeBackup + "/subscription.sqlite"))

        let running = try await Self.script("restore.sh", [nodeBackup, data])
        #expect(running.status == 1 && running.output.contains("refused: process") && running.output.contains("stop the node first"), "\(running.output)")

        // After the backup: a user the restore must take away again.
        _ = try await farelensctl(["users", "create", "--email", "gone@example.com", "--time-zone", "UTC", "--socket", socket])
        try await node.terminate()

        let bogus = root + "/bogus"
        try FileManager.default.createDirectory(atPath: bogus, withIntermediateDirectories: true)
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: bogus + "/subscription.sqlite"))
        let refused = try await Self.script("restore.sh", [bogus, data])
        #expect(refused.status == 1 && refused.output.contains("is not an SQLite database"), "\(refused.output)")

        let restored = try await Self.script("restore.sh", [nodeBackup, data])
        #expect(restored.status == 0 && restored.output.contains("restored subscription.sqlite"), "\(restored.output)")
        let restarted = try NodeProcess.start(["--services", "subscription", "--node-name", "solo", "--data-dir", data, "--listen", socket, "--log-level", "error"])
        defer { restarted.kill() }
        try await restarted.waitForOutput(containing: "farelens ready")
        let users = try await farelensctl(["users", "list", "--socket", socket, "--json"])
        #expect(users.stdout.contains("kept@example.com") && !users.stdout.contains("gone@example.com"), "\(users.stdout)")
    }
}
