import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
@testable import ScoringService
@testable import SearchService
import Testing

@Suite("Scoring with the real search through the bus")
struct ScoringMeshTests {
    /// Set once `configure` has built them.
    final class Holder: Sendable {
        let fixture = Locked<ScoringFixture?>(nil)
        let search = Locked<SearchBehaviour?>(nil)
    }

    @Test(
        "the simulated market swept every day of a fast-forwarded month feeds scoring, and a user's feed shows ranked deals with their reasons",
        arguments: MeshShape.allCases
    )
    func simulatedMonth(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            // Search and the fake subscription/watchlist answers on the server (the hub when split); scoring on the client.
            let fixture = try ScoringFixture(bus: client, neighboursOn: server, fakeAirports: false, start: Date(timeIntervalSince1970: 1_795_348_800))
            var values: [AbsoluteConfigKey: ConfigValue] = [:]
            for (key, value) in ["sweep.intervalSeconds": "0", "sweep.routes": "6", "sweep.daysAhead": "20,40", "sweep.watchedRoutes": "0", "sweep.preferredAirports": "0"] {
                values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false)
            }
            let context = ServiceContext(
                bus: server, database: try ServiceDatabase.inMemory(service: "search", migrations: SearchServiceEntry.migrations),
                logger: quietLogger(), clock: fixture.clock, configuration: ConfigReader(provider: InMemoryProvider(values: values)))
            let search = try #require(try SearchServiceEntry.makeBehaviour(context) as? SearchBehaviour)
            try search.register(on: server)
            holder.fixture.set(fixture)
            holder.search.set(search)
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let search = try #require(holder.search.get())
            let sweep = try #require(search.sweep)
            fixture.neighbours.users.update { $0["u-ana"] = (.pro, "Europe/Lisbon", [("PAR", 0.6), ("LON", 0.4)]) }
            let scored = mesh.clientBus.subscribe(DealScored.self, bufferSize: 100_000)
            let searchTask = Task { try await search.run() }
            let scoringTask = Task { try await fixture.service.run() }
            defer {
                searchTask.cancel()
                scoringTask.cancel()
            }
            var searches = 0
            for _ in 0 ..< 30 {
                fixture.clock.advance(by: 86_400)
                searches += await sweep.sweepOnce(now: fixture.clock.now()).searches
            }
            #expect(searches == 30 * 6 * 2)
            // Every deal the sweep made has reached scoring's feed once DealScored says so.
            try await waitUntil("scoring has made deals", limit: .seconds(30)) { scored.bufferedCount > 0 }
            var request = DealFeedRequest()
            request.userID = "u-ana"
            // The first deal scored need not be one of u-ana's: ask until her feed has one (bounded).
            var feed = try await mesh.clientBus.request(request)
            try await waitUntil("u-ana's feed has deals", limit: .seconds(30)) {
                if feed.items.isEmpty, let next = try? await mesh.clientBus.request(request) { feed = next }
                return !feed.items.isEmpty
            }
            #expect(!feed.items.isEmpty)
            #expect(feed.items.allSatisfy { !$0.deal.score.reasons.isEmpty && $0.deal.score.score >= 60 && $0.deal.simulated })
            #expect(zip(feed.items, feed.items.dropFirst()).allSatisfy { $0.queueScore >= $1.queueScore }, "ranked by queue score")
            #expect(feed.items.contains { $0.preferredAirportWeight > 0 }, "departures from preferred airports are boosted")
        }
    }
}
