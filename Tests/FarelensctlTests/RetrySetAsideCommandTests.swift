import ArgumentParser
import Testing
@testable import farelensctl

@Suite("alerts retry-set-aside arguments")
struct RetrySetAsideCommandTests {
    @Test("an event is PUBLISHER/SEQUENCE, split at the last slash (a publisher may hold one)")
    func keys() throws {
        let plain = try AlertsCommand.RetrySetAside.key("farelens#1x9k3q2m7z/1042")
        #expect(plain.publisher == "farelens#1x9k3q2m7z" && plain.sequence == 1042)
        let slashed = try AlertsCommand.RetrySetAside.key("hub/alerts/7")
        #expect(slashed.publisher == "hub/alerts" && slashed.sequence == 7)
    }

    @Test("a name without a publisher or a whole sequence is refused, naming the form", arguments: ["1042", "/1042", "node/", "node/-1", "node/1.5", "node/x", ""])
    func badKeys(text: String) {
        #expect { try AlertsCommand.RetrySetAside.key(text) } throws: { "\($0)".contains("PUBLISHER/SEQUENCE") }
    }

    @Test("events or --all, not both and not neither")
    func eventsOrAll() throws {
        #expect(throws: (any Error).self) { try AlertsCommand.RetrySetAside.parse([]) }
        #expect(throws: (any Error).self) { try AlertsCommand.RetrySetAside.parse(["--all", "node/1"]) }
        #expect(try AlertsCommand.RetrySetAside.parse(["--all"]).all)
        #expect(try AlertsCommand.RetrySetAside.parse(["node/1", "node/2"]).events == ["node/1", "node/2"])
    }
}
