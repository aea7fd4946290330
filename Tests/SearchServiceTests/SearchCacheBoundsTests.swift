import Configuration
import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Search cache bounds")
struct SearchCacheBoundsTests {
    private static func on(day: Int32) -> SearchFlightsRequest {
        SearchEngineFixture.request { $0.departureDate.day = day }
    }

    @Test("past its entry bound the answer cache forgets the least recently used answer")
    func answersAreLRU() async throws {
        let provider = ScriptedProvider("amadeus")
        var limits = SearchCacheLimits()
        limits.answerEntries = 2
        let fixture = SearchEngineFixture(live: [provider], cacheLimits: limits)
        for day: Int32 in [10, 11, 10, 12] { _ = try await fixture.engine.search(Self.on(day: day)) }
        #expect(provider.calls.get() == 3)
        #expect(try await fixture.engine.search(Self.on(day: 10)).fromCache)
        #expect(try await !fixture.engine.search(Self.on(day: 11)).fromCache)
        #expect(provider.calls.get() == 4)
    }

    @Test("the answer cache stays within its byte bound")
    func answersByteBound() async throws {
        var limits = SearchCacheLimits()
        limits.answerBytes = 8_000
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")], cacheLimits: limits)
        for day: Int32 in 1 ... 28 { _ = try await fixture.engine.search(Self.on(day: day)) }
        let occupancy = await fixture.engine.cacheOccupancy
        #expect(occupancy.answerBytes <= 8_000 && occupancy.answers > 0 && occupancy.answers < 28)
    }

    @Test("past its bound the offer index forgets the oldest offers: booking options for them are unknown")
    func offerIndexIsBounded() async throws {
        var limits = SearchCacheLimits()
        limits.offerEntries = 2
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")], cacheLimits: limits)
        let old = try await fixture.engine.search(Self.on(day: 10))
        let new = try await fixture.engine.search(Self.on(day: 11))
        #expect(await fixture.engine.offer(old.offers[0].offerID) == nil)
        #expect(await fixture.engine.offer(new.offers[0].offerID) != nil)
        #expect(await fixture.engine.cacheOccupancy.offers == 2)
    }

    @Test("cache bounds are read from search.cache.* keys")
    func settings() throws {
        let reader = configReader(["cache.answers.maxEntries": "50", "cache.answers.maxMebibytes": "3", "cache.offers.maxEntries": "70", "cache.airports.maxMebibytes": "1"])
        let limits = try SearchSettings(reader: reader).cacheLimits
        #expect(limits.answerEntries == 50 && limits.answerBytes == 3 << 20 && limits.offerEntries == 70)
        #expect(limits.offerBytes == 128 << 20 && limits.airportBytes == 1 << 20 && limits.airportEntries == 5_000)
        let refused = #expect(throws: SearchSettingsError.self) { try SearchSettings(reader: configReader(["cache.offers.maxMebibytes": "0"])) }
        #expect(refused?.key == "search.cache.offers.maxMebibytes")
    }
}

/// A reader scoped to "search" over `values` (keys without the "search." prefix).
func configReader(_ values: [String: String]) -> ConfigReader {
    var entries: [AbsoluteConfigKey: ConfigValue] = [:]
    for (key, value) in values { entries[AbsoluteConfigKey(stringLiteral: "search." + key)] = ConfigValue(.string(value), isSecret: false) }
    return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "search")
}
