import Foundation
import Testing

/// The real `farelensctl` refusing a negative value as a usage error (it
/// printed the command's help and exited 0 for `clock advance -1h`).
@Suite("farelensctl refuses negative values, as a process")
struct CtlNegativeValueProcessTests {
    @Test("clock advance -1h exits 64 naming invalid-value and the word, with no help text and without connecting", arguments: [
        ["clock", "advance", "-1h"],
        ["--socket", "/nonexistent/farelens.sock", "clock", "advance", "-30m", "--wait"],
        ["watchlists", "add", "--user", "u-1", "LHR", "JFK", "--limit", "-5", "--json"],
    ])
    func refused(arguments: [String]) async throws {
        let run = try await farelensctl(arguments)
        let word = try #require(arguments.first { $0.hasPrefix("-") && $0.dropFirst().first?.isNumber == true })
        #expect(run.status == 64, "\(arguments): exit \(run.status), stdout \(run.stdout.prefix(200))")
        // After an option, the option is named (with --json, in the JSON error on stdout).
        let said = arguments.contains("--json") ? run.stdout : run.stderr
        let message = arguments.contains("--limit") ? "--limit must not be negative, not '\(word)'" : "invalid-value: '\(word)' is negative"
        #expect(said.contains(message), "\(said)")
        #expect(!run.stdout.contains("OVERVIEW"))
    }

    @Test("an option that reads an amount whatever it starts with still refuses a negative one with its own message", arguments: [
        (["watchlists", "add", "--user", "u-1", "LHR", "JFK", "--threshold", "-5GBP"], "--threshold must be an amount"),
        (["deals", "--user", "u-1", "--under", "-300EUR"], "--under"),
        (["search", "LHR", "JFK", "2027-01-10", "--max-price", "-1EUR"], "--max-price"),
    ] as [([String], String)])
    func amountsKeepTheirMessage(arguments: [String], message: String) async throws {
        let run = try await farelensctl(arguments)
        #expect(run.status == 64, "\(arguments): exit \(run.status)")
        #expect(run.stderr.contains(message) && !run.stderr.contains("invalid-value"), "\(run.stderr)")
    }
}
