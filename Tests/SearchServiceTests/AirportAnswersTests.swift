import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Airport answers cache")
struct AirportAnswersTests {
    /// Answers ranked by a counting stand-in for the directory.
    private func answers(clock: ManualWallClock, maxEntries: Int = 100, ranked: Locked<Int>) -> AirportAnswers {
        AirportAnswers(maxEntries: maxEntries, maxBytes: 1 << 20, now: { clock.now() }) { (request) throws(SearchError) in
            ranked.update { $0 += 1 }
            var response = AirportAutocompleteResponse()
            response.suggestions = [AirportSuggestion()]
            return response
        }
    }

    private func query(_ text: String) -> AirportAutocompleteRequest {
        var request = AirportAutocompleteRequest()
        request.query = text
        return request
    }

    @Test("an autocomplete answer is served from the cache at 59 minutes and ranked again at 61")
    func oneHourLifetime() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))
        let ranked = Locked(0)
        let cache = answers(clock: clock, ranked: ranked)
        _ = try await cache.autocomplete(query("lis"))
        #expect(ranked.get() == 1)
        clock.advance(by: 59 * 60)
        _ = try await cache.autocomplete(query("LIS"))
        #expect(ranked.get() == 1)
        clock.advance(by: 2 * 60)
        _ = try await cache.autocomplete(query("lis"))
        #expect(ranked.get() == 2)
    }

    @Test("past its bound the autocomplete cache drops the least recently used answer")
    func bounded() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))
        let ranked = Locked(0)
        let cache = answers(clock: clock, maxEntries: 2, ranked: ranked)
        for text in ["lis", "lon", "lis", "par"] { _ = try await cache.autocomplete(query(text)) }
        let kept = await cache.count
        #expect(ranked.get() == 3 && kept == 2)
        _ = try await cache.autocomplete(query("lis"))
        #expect(ranked.get() == 3)
        _ = try await cache.autocomplete(query("lon"))
        #expect(ranked.get() == 4)
    }
}
