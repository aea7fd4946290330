import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import SearchService
import Testing

@Suite("Quota, fallback and stale results")
struct QuotaAndFallbackTests {
    @Test("each class stops at its share of quota: sweep 90%, Free 95%, Pro 98%, user searches 100%")
    func priorityClasses() async throws {
        let provider = ScriptedProvider("amadeus")
        let fixture = SearchEngineFixture(live: [provider], quotaLimit: 100)
        var day = 0
        func search(_ purpose: SearchPurpose) async throws -> SearchFlightsResponse {
            day += 1
            let date = CalendarDate(year: 2026, month: 11, day: 23)!.adding(days: day).message
            return try await fixture.engine.search(SearchEngineFixture.request(purpose) { $0.departureDate = date })
        }
        func fill(to used: Int) async throws { while provider.calls.get() < used { _ = try await search(.userSearch) } }
        func expectRefused(_ purpose: SearchPurpose) async throws {
            let error = await #expect(throws: SearchError.self) { try await search(purpose) }
            #expect(error?.code == "no-fares-available" && error?.message.contains("monthly quota reached") == true)
        }
        try await fill(to: 90)
        try await expectRefused(.backgroundSweep)
        _ = try await search(.freeWatchlist)
        try await fill(to: 95)
        try await expectRefused(.freeWatchlist)
        _ = try await search(.proWatchlist)
        try await fill(to: 98)
        try await expectRefused(.proWatchlist)
        try await fill(to: 100)
        try await expectRefused(.userSearch)
        #expect(provider.calls.get() == 100)
    }

    @Test("each quota class has its documented share")
    func shares() {
        #expect(QuotaLedger.share(.userSearch) == 1.0)
        #expect(QuotaLedger.share(.proWatchlist) > QuotaLedger.share(.freeWatchlist))
        #expect(QuotaLedger.share(.freeWatchlist) > QuotaLedger.share(.backgroundSweep))
        #expect(QuotaLedger.share(.backgroundSweep) == 0.9)
    }

    @Test("crossing 80% and 90% publishes one warning each per period")
    func warnings() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus")], quotaLimit: 10)
        let warnings = fixture.bus.subscribe(QuotaWarning.self)
        let received = try await fixture.running {
            for day in 1 ... 10 { _ = try await fixture.engine.search(SearchEngineFixture.request { $0.departureDate.day = Int32(day) }) }
            return try await firstEvents(2, of: warnings)
        }
        #expect(received.map(\.thresholdPercent) == [80, 90])
        #expect(received.map(\.used) == [8, 9] && received.allSatisfy { $0.limit == 10 && $0.period == "2026-11" })
        let status = try await fixture.engine.quotaStatus(ProviderQuotaRequest())
        #expect(status.providers.first?.used == 10 && status.providers.first?.exhausted == true && status.providers.first?.backgroundStopped == true)
    }

    @Test("quota use survives a restart (it lives in search.sqlite)")
    func persists() async throws {
        let directory = NSTemporaryDirectory() + "quota-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let at = Date(timeIntervalSince1970: 1_795_348_800)
        do {
            let database = try ServiceDatabase.open(service: "search", directory: directory, migrations: SearchEngineFixture.migrations())
            let ledger = QuotaLedger(limit: 10, database: database)
            for _ in 0..<3 { _ = try await ledger.charge("amadeus", at: at) }
            try database.close()
        }
        let database = try ServiceDatabase.open(service: "search", directory: directory, migrations: SearchEngineFixture.migrations())
        #expect(try await QuotaLedger(limit: 10, database: database).used("amadeus", at: at) == 3)
        // A new month starts at zero.
        #expect(try await QuotaLedger(limit: 10, database: database).used("amadeus", at: at.addingTimeInterval(40 * 86_400)) == 0)
        try database.close()
    }

    @Test("a failing provider falls back to the next one (Travelpayouts after Amadeus)")
    func fallback() async throws {
        let amadeus = ScriptedProvider("amadeus", failure: .server("amadeus", status: 503))
        let travelpayouts = ScriptedProvider("travelpayouts", price: 9_000)
        let fixture = SearchEngineFixture(live: [amadeus, travelpayouts])
        let calls = fixture.bus.subscribe(ProviderCalled.self)
        let (response, events) = try await fixture.running {
            (try await fixture.engine.search(SearchEngineFixture.request()), try await firstEvents(2, of: calls))
        }
        #expect(response.providers == ["travelpayouts"] && !response.stale)
        #expect(amadeus.calls.get() == 1 && travelpayouts.calls.get() == 1)
        #expect(events.map(\.provider) == ["amadeus", "travelpayouts"] && events.map(\.errorCode) == ["http-5xx", ""])
        #expect(try await fixture.engine.quotaStatus(ProviderQuotaRequest()).providers.first?.lastError == "amadeus: server error (HTTP 503)")
    }

    @Test("when every provider fails, cached results up to 7 days old are served, marked stale with the reason")
    func staleFallback() async throws {
        let provider = ScriptedProvider("amadeus")
        let fixture = SearchEngineFixture(live: [provider])
        let fresh = try await fixture.engine.search(SearchEngineFixture.request())
        provider.failure.set(.timeout("amadeus", after: .seconds(10)))
        fixture.clock.advance(by: 6 * 86_400)
        let stale = try await fixture.engine.search(SearchEngineFixture.request())
        #expect(stale.stale && stale.staleReason == "Live prices unavailable, showing cached results")
        #expect(stale.offers == fresh.offers && stale.observedAtUnixMs == fresh.observedAtUnixMs)
        fixture.clock.advance(by: 2 * 86_400)
        let tooOld = await #expect(throws: SearchError.self) { try await fixture.engine.search(SearchEngineFixture.request()) }
        #expect(tooOld?.code == "no-fares-available")
    }

    @Test("with nothing cached and every provider failing, the error is no-fares-available with the reasons")
    func noFares() async throws {
        let fixture = SearchEngineFixture(live: [ScriptedProvider("amadeus", failure: .rateLimited("amadeus", retryAfter: .seconds(7)))])
        do {
            _ = try await fixture.engine.search(SearchEngineFixture.request())
            Issue.record("expected no-fares-available")
        } catch {
            #expect(error.code == "no-fares-available")
            #expect(error.message.contains("amadeus: rate limited (HTTP 429), retry after 7 s"))
        }
    }
}
