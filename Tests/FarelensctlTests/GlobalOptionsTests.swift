import Testing
@testable import farelensctl

/// Global options written before the subcommand reach the leaf command.
@Suite("Global options anywhere on the line")
struct GlobalOptionsTests {
    @Test(
        "options before the subcommand move to the end, in order; anything else stays where it was",
        arguments: [
            (["--socket", "/s", "status"], ["status", "--socket", "/s"]),
            (["--socket=/s", "--json", "alerts", "history", "--user", "u-1"], ["alerts", "history", "--user", "u-1", "--socket=/s", "--json"]),
            (["--timeout-ms", "900", "--socket", "/s", "users", "show", "a@b.c"], ["users", "show", "a@b.c", "--timeout-ms", "900", "--socket", "/s"]),
            (["status", "--socket", "/s"], ["status", "--socket", "/s"]),
            (["--help"], ["--help"]),
            (["--generate-completion-script", "bash"], ["--generate-completion-script", "bash"]),
            (["--json"], ["--json"]),
            (["--socket"], ["--socket"]),
            (["--json", "--version"], ["--json", "--version"]),
            ([], []),
        ]
    )
    func hoisting(arguments: [String], expected: [String]) {
        #expect(GlobalOptions.hoisted(arguments) == expected)
    }

    @Test("the hoisted line parses: a leaf command reads the socket and --json written before it")
    func parses() throws {
        let command = try FareLensCtl.parseAsRoot(GlobalOptions.hoisted(["--socket", "/tmp/x.sock", "--json", "status"]))
        let status = try #require(command as? StatusCommand)
        #expect(status.options.socketPath == "/tmp/x.sock" && status.options.json)
    }
}
