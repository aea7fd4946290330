import ArgumentParser
import FareLensMessages
import Testing
@testable import farelensctl

/// `alerts history --decision`: a decision by the one name metrics and
/// reports give it (issue #63, item 5; docs/alerts.md, "Decisions and their names").
@Suite("alerts history --decision")
struct AlertDecisionOptionTests {
    static let names = ["sent", "held", "deduped", "capped", "muted", "stale_price", "not_alertable"]

    @Test("each decision's name is accepted and is what the table prints", arguments: names)
    func accepted(name: String) throws {
        let command = try AlertsCommand.History.parse(["--user", "u-1", "--decision", name])
        let decision = try AlertsCommand.decision(try #require(command.decision))
        #expect(decision.name == name)
        #expect(AlertsCommand.decisionName(decision) == name)
    }

    @Test("another spelling is refused naming the option, the value and every accepted name", arguments: ["not-alertable", "stale-price", "notAlertable", "stale", "unspecified", ""])
    func refused(word: String) {
        let said = parseRefusal { try FareLensCtl.parseAsRoot(["alerts", "history", "--user", "u-1", "--decision", word]) }
        #expect(said.contains("--decision '\(word)' is not a decision: use one of \(Self.names.joined(separator: ", "))"), "\(said)")
    }

    @Test("the option's help lists the accepted names")
    func help() {
        let help = AlertsCommand.History.helpMessage(columns: 400)
        #expect(help.contains("Only this decision: \(Self.names.joined(separator: ", ")).") , "\(help)")
    }
}
