import FareLensTesting
import Foundation
import Testing

/// `farelens serve` given a misspelled key (issue #58, item 5: it started
/// as if the key were not there), and `farelens config keys`.
@Suite("farelens names the configuration keys it does not know")
struct ConfigKeysProcessTests {
    static let misspelled = ["FARELENS_ALERTS_WEBHOOK_INITIALBACKOFFSECONDS": "abc"]
    static let suggestion = "FARELENS_ALERTS_WEBHOOK_INITIALBACKOFFSECONDS is not a configuration key; did you mean FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS (alerts.webhook.initialBackoffSeconds)?"

    static func arguments(_ directory: String) -> [String] {
        ["serve", "--data-dir", directory + "/data", "--listen", directory + "/s.sock", "--http-listen", "127.0.0.1:0"]
    }

    @Test("with --strict-config a misspelled variable stops start-up: exit 1, one line on stderr naming the key and the suggestion")
    func strictRefuses() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let result = try await ChildProcess.run(Binaries.farelens, Self.arguments(directory) + ["--strict-config"], environment: Self.misspelled)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("farelens: error: strictConfig (--strict-config) refuses keys the node does not know: "), "\(result.stderr)")
        #expect(result.stderr.contains(Self.suggestion), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!result.stdout.contains("farelens ready"))
    }

    @Test("without --strict-config the node starts and its log (stderr) warns of the misspelled variable, naming the suggestion")
    func warnsAndStarts() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let node = try ChildProcess.start(Binaries.farelens, Self.arguments(directory), environment: Self.misspelled)
        defer { node.kill() }
        try await node.waitForOutput(containing: "farelens ready")
        let warning = node.output.get().split(separator: "\n").first { $0.contains(Self.suggestion) }
        #expect(warning?.contains("warning") == true, "\(node.output.get())")
    }

    @Test("farelens config keys --json lists each key with its type, default and environment variable")
    func listsKeys() async throws {
        let result = try await ChildProcess.run(Binaries.farelens, ["config", "keys", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let keys = try #require(listing["keys"] as? [[String: Any]])
        let backoff = try #require(keys.first { $0["key"] as? String == "alerts.webhook.initialBackoffSeconds" })
        #expect(backoff["environment"] as? String == "FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS")
        #expect(backoff["type"] as? String == "integer")
        #expect(backoff["default"] as? String == "10")
        let others = try #require(listing["other_environment_variables"] as? [[String: Any]])
        #expect(others.contains { $0["name"] as? String == "FARELENS_SOCKET" })

        let table = try await ChildProcess.run(Binaries.farelens, ["config", "keys"])
        #expect(table.status == 0)
        #expect(table.stdout.split(separator: "\n").contains {
            $0.hasPrefix("alerts.webhook.initialBackoffSeconds ") && $0.contains(" integer ") && $0.contains(" 10 ") && $0.contains(" FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS ")
        }, "\(table.stdout)")
    }
}
