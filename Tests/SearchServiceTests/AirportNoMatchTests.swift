import FareLensMessages
@testable import SearchService
import Testing

/// A query that matches nothing answers nothing (issue #63: `airports 東京`
/// listed popular airports as if they matched).
@Suite("Airport autocomplete: no match")
struct AirportNoMatchTests {
    let directory = try! AirportDirectory.bundled()

    @Test("a non-empty query that matches no code, city or airport name answers no suggestions", arguments: ["東京", "zzzz", "xyzzy"])
    func nothing(query: String) throws {
        #expect(directory.autocomplete(query, limit: 10).isEmpty)
        var request = AirportAutocompleteRequest()
        request.query = query
        #expect(try directory.autocomplete(request).suggestions.isEmpty)
    }

    @Test("a query that matched something is still followed by popular airports up to the limit")
    func partialMatchStillFilled() {
        let suggestions = directory.autocomplete("heathrow", limit: 10)
        #expect(suggestions.first?.airport.iataCode == "LHR")
        #expect(suggestions.count == 10 && suggestions.dropFirst().contains { $0.match == .popular })
    }
}
