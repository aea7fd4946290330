import FareLensMessages
import FareLensTesting
@testable import SearchService
import Testing

@Suite("Search cache and coalescing")
struct SearchCacheTests {
    @Test("a user search is served from the cache for 5 minutes, then asks the provider again")
    func userSearchLifetime() async throws {
        let provider = ScriptedProvider("amadeus")
        let fixture = SearchEngineFixture(live: [provider])
        let first = try await fixture.engine.search(SearchEngineFixture.request())
        #expect(!first.fromCache && provider.calls.get() == 1)
        fixture.clock.advance(by: 299)
        let second = try await fixture.engine.search(SearchEngineFixture.request())
        #expect(second.fromCache && second.offers == first.offers && provider.calls.get() == 1)
        fixture.clock.advance(by: 2)
        let third = try await fixture.engine.search(SearchEngineFixture.request())
        #expect(!third.fromCache && provider.calls.get() == 2)
    }

    @Test("a watchlist check accepts answers up to 30 minutes old")
    func watchlistLifetime() async throws {
        let provider = ScriptedProvider("amadeus")
        let fixture = SearchEngineFixture(live: [provider])
        _ = try await fixture.engine.search(SearchEngineFixture.request(.proWatchlist))
        fixture.clock.advance(by: 29 * 60)
        #expect(try await fixture.engine.search(SearchEngineFixture.request(.freeWatchlist)).fromCache)
        fixture.clock.advance(by: 2 * 60)
        #expect(try await !fixture.engine.search(SearchEngineFixture.request(.proWatchlist)).fromCache)
        #expect(provider.calls.get() == 2)
        // The same 6-minute-old answer is fresh for a watchlist but not for a person searching.
        fixture.clock.advance(by: 6 * 60)
        #expect(try await fixture.engine.search(SearchEngineFixture.request(.proWatchlist)).fromCache)
        #expect(try await !fixture.engine.search(SearchEngineFixture.request(.userSearch)).fromCache)
        #expect(provider.calls.get() == 3)
    }

    @Test("20 identical searches in flight at once share one provider call")
    func coalescing() async throws {
        let gate = Gate()
        let provider = ScriptedProvider("amadeus", gate: gate)
        let fixture = SearchEngineFixture(live: [provider])
        let completed = fixture.bus.subscribe(SearchCompleted.self)
        let reports = try await fixture.running {
            try await withThrowingTaskGroup(of: SearchFlightsResponse.self) { group in
                for _ in 0..<20 { group.addTask { try await fixture.engine.search(SearchEngineFixture.request()) } }
                try await waitUntil("the first search reached the provider") { provider.calls.get() == 1 }
                // The other 19 join before the provider answers.
                try await waitUntil("19 searches joined the first") { await fixture.engine.flightWaiters.joined == 19 }
                gate.open()
                var answers: [SearchFlightsResponse] = []
                for try await answer in group { answers.append(answer) }
                #expect(answers.count == 20 && Set(answers.map(\.offers)).count == 1)
            }
            return try await firstEvents(20, of: completed)
        }
        #expect(provider.calls.get() == 1)
        #expect(reports.filter { !$0.coalesced && !$0.cacheHit }.count == 1)
        #expect(reports.filter(\.coalesced).allSatisfy { $0.providerCalls == 0 })
    }

    @Test("different searches are not coalesced")
    func differentSearches() async throws {
        let provider = ScriptedProvider("amadeus")
        let fixture = SearchEngineFixture(live: [provider])
        _ = try await fixture.engine.search(SearchEngineFixture.request())
        _ = try await fixture.engine.search(SearchEngineFixture.request { $0.adults = 2 })
        _ = try await fixture.engine.search(SearchEngineFixture.request { $0.cabin = .business })
        #expect(provider.calls.get() == 3)
    }
}
