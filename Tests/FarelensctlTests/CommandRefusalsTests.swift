import ArgumentParser
import Testing
@testable import farelensctl

/// Input that crashed farelensctl or was sent as something else, found by
/// probing every command with bad input: each is now refused before
/// connecting, with a message naming the option.
@Suite("farelensctl refuses bad input before connecting")
struct CommandRefusalsTests {
    @Test("each is refused with its message", arguments: [
        // Crashed: an index out of range on the empty code.
        (["users", "create", "--email", "a@example.com", "--time-zone", "UTC", "--preferred", ""], "--preferred '': expected CODE or CODE=WEIGHT"),
        (["users", "create", "--email", "a@example.com", "--time-zone", "UTC", "--preferred", "="], "--preferred '=': expected CODE or CODE=WEIGHT"),
        // Were stored with a weight of 1.
        (["users", "create", "--email", "a@example.com", "--time-zone", "UTC", "--preferred", "JFK="], "--preferred 'JFK=': the weight must be a number"),
        (["users", "create", "--email", "a@example.com", "--time-zone", "UTC", "--preferred", "JFK==1"], "--preferred 'JFK==1': expected CODE or CODE=WEIGHT"),
        (["users", "create", "--email", "a@example.com", "--time-zone", "UTC", "--preferred", "JFK=abc"], "--preferred 'JFK=abc': the weight must be a number"),
        // Crashed: a prefix of negative length.
        (["search", "LHR", "JFK", "2027-01-10", "--limit=-1"], "--limit must be at least 1, not -1"),
        (["search", "LHR", "JFK", "2027-01-10", "--limit", "0"], "--limit must be at least 1, not 0"),
        // Crashed: the watchdog's arithmetic overflowed.
        (["status", "--timeout-ms", "9223372036854775807"], "--timeout-ms must be at most 86400000 (a day), not 9223372036854775807"),
        // Crashed: the sleep's nanoseconds overflowed.
        (["events", "tail", "--seconds", "9223372036854775807"], "--seconds must be 1–31536000 (a year), not 9223372036854775807"),
        (["alerts", "tail", "--seconds", "31536001"], "--seconds must be 1–31536000 (a year), not 31536001"),
        // Said "Missing value for '--count <count>'", or showed another command's usage.
        (["alerts", "tail", "--count=-5"], "--count must be positive, not -5"),
        (["alerts", "tail", "--count=0"], "--count must be positive, not 0"),
        // Was sent as no id: the service replays every dead letter then.
        (["alerts", "replay", ""], "the alert id is empty"),
        (["alerts", "replay", " "], "the alert id is empty"),
    ] as [([String], String)])
    func refused(arguments: [String], message: String) {
        let said = parseRefusal { try FareLensCtl.parseAsRoot(arguments) }
        #expect(said.contains(message), "\(arguments): \(said.isEmpty ? "parsed" : said)")
    }

    @Test("a word naming no subcommand of its group is refused naming it and the group's subcommands (ArgumentParser named the first option instead: 'Unknown option --socket'); known lines are left to the parser")
    func unknownSubcommands() {
        #expect(
            UnknownSubcommands.refusal(in: ["users", "add", "--socket", "/tmp/s", "--json"])
                == "unknown subcommand 'add' of 'farelensctl users'; it has: create, show, list, tier, currency, delete")
        #expect(UnknownSubcommands.refusal(in: ["--socket", "/tmp/s", "--json", "users", "add"])?.hasPrefix("unknown subcommand 'add' of 'farelensctl users'") == true)
        #expect(UnknownSubcommands.refusal(in: ["--timeout-ms=500", "stauts"])?.hasPrefix("unknown subcommand 'stauts' of 'farelensctl'; it has: status, services,") == true)
        #expect(UnknownSubcommands.refusal(in: ["analytics", "repotr", "--json"]) == "unknown subcommand 'repotr' of 'farelensctl analytics'; it has: report, opt-out, opt-in, delete")
        // Left to ArgumentParser: a known line, a leaf's own words, help, a group with a default subcommand, other options.
        for line in [
            ["users", "create", "--email", "a@example.com"], ["search", "LHR", "JFK", "2027-01-10"], ["help", "users"], ["users", "--help"],
            ["clock"], ["clock", "advance", "1h"], ["--generate-completion-script", "bash"], ["--version"], [],
        ] {
            #expect(UnknownSubcommands.refusal(in: line) == nil, "\(line)")
        }
    }

    @Test("a word that is '-' and a digit is refused naming it (ArgumentParser read -1h as -1 and --help); other words starting with '-' are left to the parser")
    func negativeWords() {
        #expect(NegativeArguments.refusal(in: ["clock", "advance", "-1h"]) == "invalid-value: '-1h' is negative; farelensctl takes no negative values (a clock only moves forward)")
        #expect(NegativeArguments.refusal(in: ["search", "LHR", "JFK", "2027-01-10", "--limit", "-0"]) == "--limit must not be negative, not '-0'")
        // Said "(a clock only moves forward)" for a limit.
        #expect(NegativeArguments.refusal(in: ["deals", "--user", "u-1", "--limit", "-1"]) == "--limit must not be negative, not '-1'")
        for line in [["clock", "advance", "1h"], ["search", "LHR", "JFK", "2027-01-10", "--limit=-1"], ["-h"], ["--json", "status"], ["alerts", "replay", "-"], ["watchlists", "add", "--user", "u", "LHR", "JFK", "--threshold", "-5GBP"], []] {
            #expect(NegativeArguments.refusal(in: line) == nil, "\(line)")
        }
    }

    @Test("the good forms still parse: weights, a limit, a day's timeout, a year's watch, one alert id")
    func goodFormsParse() throws {
        let user = try #require(try FareLensCtl.parseAsRoot(["users", "create", "--email", "a@example.com", "--time-zone", "UTC", "--preferred", "JFK=0.5", "--preferred", "LHR=0.5"]) as? UsersCommand.Create)
        #expect(try user.preferred.map(UsersCommand.Create.airport).map(\.weight) == [0.5, 0.5])
        #expect(try UsersCommand.Create.airport("LIS").code == "LIS")
        _ = try FareLensCtl.parseAsRoot(["search", "LHR", "JFK", "2027-01-10", "--limit", "1"])
        _ = try FareLensCtl.parseAsRoot(["status", "--timeout-ms", "86400000"])
        _ = try FareLensCtl.parseAsRoot(["events", "tail", "--seconds", "31536000"])
        _ = try FareLensCtl.parseAsRoot(["alerts", "tail", "--count", "3"])
        _ = try FareLensCtl.parseAsRoot(["alerts", "replay", "a0f3a9c2b7d1e4a55"])
    }
}
