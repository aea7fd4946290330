import Testing
@testable import farelensctl

/// `farelensctl airports` (issue #63).
@Suite("farelensctl airports output")
struct AirportsOutputTests {
    @Test("no suggestions for a query says no airport matches it, instead of an empty table")
    func noMatch() {
        #expect(AirportsCommand.noMatch(query: "東京", []) == "no airport matches '東京'")
        #expect(AirportsCommand.noMatch(query: "", []) == "no airports")
    }
}
