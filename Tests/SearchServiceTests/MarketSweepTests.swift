import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Market sweep")
struct MarketSweepTests {
    /// The airport directory, and a search engine over the simulated market (seed 3) on a manual clock.
    private func simulatedMarket() throws -> (AirportDirectory, SearchEngineFixture) {
        let directory = try AirportDirectory.bundled()
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))
        return (directory, SearchEngineFixture(simulated: try SimulatedMarket(directory: directory, seed: 3, clock: { clock.now() })))
    }

    @Test("a sweep searches the most-observed routes and publishes every fare it sees")
    func publishesFares() async throws {
        let (directory, fixture) = try simulatedMarket()
        let observed = fixture.bus.subscribe(FareObserved.self, bufferSize: 1000)
        let sweep = MarketSweep(engine: fixture.engine, table: try RouteFareTable.bundled(), directory: directory, count: 2, daysAhead: [7, 21], logger: quietLogger())
        #expect(sweep.sweptRoutes.map { "\($0.0)-\($0.1)" } == ["PAR-MIL", "LON-EDI"])  // the two routes with most observations
        let (summary, events) = try await fixture.running {
            let summary = await sweep.sweepOnce(now: fixture.clock.now())
            return (summary, try await firstEvents(summary.offers, of: observed))
        }
        #expect(summary.searches == 4 && summary.failures == 0 && summary.offers > 0)
        #expect(events.allSatisfy { $0.purpose == .backgroundSweep && $0.simulated })
        #expect(Set(events.map(\.origin)).isSubset(of: Set(directory.memberAirports(of: "PAR").map(\.code) + directory.memberAirports(of: "LON").map(\.code))))
    }

    @Test("a sweep whose task is cancelled (the service stopping) starts no further search, publishes nothing and says it stopped")
    func stopsWhenCancelled() async throws {
        let (directory, fixture) = try simulatedMarket()
        let searched = fixture.bus.subscribe(SearchCompleted.self, bufferSize: 100)
        let sweep = MarketSweep(engine: fixture.engine, table: try RouteFareTable.bundled(), directory: directory, count: 2, daysAhead: [7, 21], logger: quietLogger())
        let summary = try await fixture.running {
            await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await sweep.sweepOnce(now: fixture.clock.now())
            }.value
        }
        #expect(summary == MarketSweep.Summary(searches: 0, offers: 0, failures: 0, stopped: true))
        #expect(searched.bufferedCount == 0)
    }

    @Test("a sweep does not call a live provider at 90% of its quota")
    func respectsQuota() async throws {
        let live = ScriptedProvider("amadeus")
        let fixture = SearchEngineFixture(live: [live], quotaLimit: 10)
        for _ in 0..<9 { _ = try await fixture.quota.charge("amadeus", at: fixture.clock.now()) }
        let sweep = MarketSweep(engine: fixture.engine, table: try RouteFareTable.bundled(), directory: try AirportDirectory.bundled(), count: 1, daysAhead: [7], logger: quietLogger())
        let summary = await sweep.sweepOnce(now: fixture.clock.now())
        #expect(summary.failures == 1 && live.calls.get() == 0)
    }

    @Test("a sweep also searches the routes on watchlists and departures from preferred airports, as search keeps them from events; none kept adds nothing")
    func watchedAndPreferredRoutes() async throws {
        let (directory, fixture) = try simulatedMarket()
        let targets = try KeptSweepTargetsTests.targets(watchedLimit: 5, airportLimit: 2)
        targets.apply(KeptSweepTargetsTests.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", cabin: .business, at: 1))
        let sweep = MarketSweep(
            engine: fixture.engine, table: try RouteFareTable.bundled(), directory: directory, count: 1, daysAhead: [7], targets: targets,
            departuresPerAirport: 2, logger: quietLogger()
        )
        let searched = fixture.bus.subscribe(SearchCompleted.self, bufferSize: 100)
        // No preferred airports kept: the sweep goes on with the rest.
        let (summary, events) = try await fixture.running {
            let summary = await sweep.sweepOnce(now: fixture.clock.now())
            return (summary, try await firstEvents(summary.searches, of: searched))
        }
        #expect(summary.searches == 2)
        #expect(events.map { "\($0.origin)-\($0.destination)" } == ["JFK-NRT", "PAR-MIL"])
        #expect(events.allSatisfy { $0.purpose == .backgroundSweep })

        let plan = sweep.plan(watched: [MarketSweep.Route(origin: "PAR", destination: "MIL")], preferred: ["LON"])
        #expect(plan.map(\.description) == ["PAR-MIL"] + sweep.routes.filter { $0.0 == "LON" }.prefix(2).map { "\($0.0)-\($0.1)" })
    }
}
