import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

/// A search replies first and publishes after: no user request waits on
/// event backpressure (DESIGN.md, the bus).
@Suite("Search events")
struct SearchEventTests {
    @Test("20 searches all answer while a durable FareObserved subscriber with a buffer of 1 never consumes")
    func searchesDoNotWaitOnBackpressure() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")])
        let stuck = fixture.bus.subscribe(FareObserved.self, bufferSize: 1)
        let answered = try await fixture.running {
            // Afterwards (or on failure) release the publisher waiting for room, so the drain can end.
            defer { stuck.cancel() }
            var answered = 0
            for day in 1 ... 20 {
                let response = try await fixture.engine.search(SearchEngineFixture.request { $0.departureDate.day = Int32(day) })
                if !response.offers.isEmpty { answered += 1 }
            }
            return answered
        }
        #expect(answered == 20)
    }

    @Test("a search served from the cache publishes no FareObserved")
    func noFareObservedOnCacheHit() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")])
        let observed = fixture.bus.subscribe(FareObserved.self, bufferSize: 100)
        let events = try await fixture.running {
            _ = try await fixture.engine.search(SearchEngineFixture.request())
            let hit = try await fixture.engine.search(SearchEngineFixture.request())
            #expect(hit.fromCache)
            // A different search: its two events follow whatever the cache hit published.
            _ = try await fixture.engine.search(SearchEngineFixture.request { $0.departureDate.day = 11 })
            return try await firstEvents(4, of: observed)
        }
        #expect(events.map(\.departureDate.day) == [10, 10, 11, 11])
    }
}
