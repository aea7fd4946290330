import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
@testable import SearchService
@testable import SubscriptionService
import Testing
@testable import WatchlistService

/// Search keeps its sweep targets from the watchlist and subscription
/// services' events instead of asking them (the request graph is one-way,
/// docs/architecture.md): what it keeps must be what they would have
/// answered, in one process and with search on another node.
@Suite("Search's sweep targets follow the watchlist and subscription services")
struct SweepTargetsFollowTests {
    /// Set once `configure` has built them (they need the mesh's buses).
    final class Holder: Sendable {
        let fixture = Locked<WatchlistFixture?>(nil)
        let kept = Locked<(KeptSweepTargets, KeptSweepTargets.Subscriptions)?>(nil)
    }

    static func keptTargets(on bus: MessageBus) throws -> (KeptSweepTargets, KeptSweepTargets.Subscriptions) {
        let database = try ServiceDatabase.inMemory(service: "search", migrations: SearchServiceEntry.migrations)
        return (KeptSweepTargets(database: database, watchedLimit: 10, airportLimit: 10, logger: quietLogger()), KeptSweepTargets.Subscriptions(on: bus))
    }

    /// What search keeps, and what the two services answer when asked, as comparable lines.
    static func keptAndAsked(_ kept: KeptSweepTargets, _ fixture: WatchlistFixture) async throws -> (kept: [String], asked: [String]) {
        let asked = try await fixture.watchlists.watchedRoutes(WatchedRoutesRequest()).routes.map {
            "\(MarketSweep.Route(origin: $0.origin, destination: $0.destination, cabin: $0.cabin))×\($0.watchlistCount)"
        } + fixture.subscription.preferredAirportSummary(PreferredAirportSummaryRequest()).airports.map { "\($0.airport)×\($0.users)" }
        let keptLines = kept.allWatchedRoutes().map { "\($0.route)×\($0.watchers)" } + kept.allPreferredAirports().map { "\($0.airport)×\($0.users)" }
        return (keptLines, asked)
    }

    static func prefer(_ fixture: WatchlistFixture, _ user: String, _ codes: [String]) async throws {
        var update = UpdateUserRequest()
        update.userID = user
        update.preferredAirports.airports = codes.enumerated().map { index, code in
            var airport = PreferredAirport()
            airport.code = code
            // Weights sum to 1 (0.5 + 0.25 + 0.25 for three).
            airport.weight = codes.count == 1 ? 1 : (index == 0 ? 0.5 : 0.5 / Double(codes.count - 1))
            return airport
        }
        _ = try await fixture.subscription.updateUser(update)
    }

    @Test(
        "after creations, a deactivation, a deletion, a downgrade that trims airports and a deleted user, search keeps what the two services answer",
        arguments: MeshShape.allCases
    )
    func keptEqualsAsked(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            // Subscription, watchlists (and the fake search they ask) on the client's node; search's kept targets on the server's.
            holder.fixture.set(try WatchlistFixture(bus: client))
            holder.kept.set(try Self.keptTargets(on: server))
        } body: { _ in
            let fixture = try #require(holder.fixture.get())
            let (kept, subscriptions) = try #require(holder.kept.get())
            let following = Task { await kept.follow(subscriptions) }
            defer { following.cancel() }
            try await fixture.running {
                let ana = try await fixture.user()
                let bo = try await fixture.user("bo@example.com")
                let cy = try await fixture.user("cy@example.com")
                _ = try await fixture.watchlists.create(addRequest(ana, "JFK", "NRT"))
                _ = try await fixture.watchlists.create(addRequest(bo, "JFK", "NRT"))
                _ = try await fixture.watchlists.create(addRequest(bo, "LIS", "SFO") { $0.cabin = .business })
                let off = try await fixture.watchlists.create(addRequest(bo, "BOS", "CDG")).watchlist.watchlistID
                var update = UpdateWatchlistRequest()
                update.watchlistID = off
                update.userID = bo
                update.active = false
                _ = try await fixture.watchlists.update(update)
                let gone = try await fixture.watchlists.create(addRequest(ana, "LHR", "SYD")).watchlist.watchlistID
                var delete = DeleteWatchlistRequest()
                delete.watchlistID = gone
                delete.userID = ana
                _ = try await fixture.watchlists.delete(delete)
                _ = try await fixture.watchlists.create(addRequest(cy, "LAX", "SFO"))
                try await Self.prefer(fixture, ana, ["JFK", "LGA", "EWR"])
                try await Self.prefer(fixture, bo, ["LIS", "JFK"])
                try await Self.prefer(fixture, cy, ["SYD"])
                // Free allows one preferred airport: bo keeps LIS.
                var free = SetTierRequest()
                free.userID = bo
                free.tier = .free
                _ = try await fixture.subscription.setTier(free)
                var erase = DeleteUserRequest()
                erase.userID = cy
                _ = try await fixture.subscription.deleteUser(erase)
                // The last change of each service (waitUntilKeptAgrees waits for its effects).
                let dee = try await fixture.user("dee@example.com")
                _ = try await fixture.watchlists.create(addRequest(dee, "SFO", "LAX"))
                try await Self.prefer(fixture, dee, ["SFO"])

                let last = await waitUntilKeptAgrees("search keeps what the services answer", including: ["SFO-LAX×1", "SFO×1"]) {
                    try await Self.keptAndAsked(kept, fixture)
                }
                #expect(last.agreed, "kept \(last.kept), asked \(last.asked)")
                #expect(last.kept == ["JFK-NRT×2", "LIS-SFO/business×1", "SFO-LAX×1", "EWR×1", "JFK×1", "LGA×1", "LIS×1", "SFO×1"])
            }
        }
    }

    /// In one process only: across the socket a node's subscriptions are in its hello, so search's node
    /// would receive the events from before "the upgrade" too; the announcements cross the socket like
    /// any `WatchlistChanged` and `UserPreferencesChanged` (``keptEqualsAsked(shape:)``).
    @Test("watchlists and preferences from before search kept them are announced once at start (the upgrade's migrations), and search then keeps them")
    func upgradeAnnouncesOnce() async throws {
        let bus = MessageBus()
        let fixture = try WatchlistFixture(bus: bus)
        try await fixture.running {
            // Before the upgrade: nobody keeps them (search subscribes only below).
            let ana = try await fixture.user()
            _ = try await fixture.watchlists.create(addRequest(ana, "JFK", "NRT"))
            _ = try await fixture.watchlists.create(addRequest(ana, "LIS", "SFO"))
            try await Self.prefer(fixture, ana, ["JFK"])
            // The services' new migrations record the announcements as due (as on a database the upgrade migrated).
            try await fixture.database.writer.write { db in try db.execute(sql: "INSERT INTO pending_announcement (name) VALUES ('watchlists')") }
            try await fixture.subscription.database.writer.write { db in
                try db.execute(sql: "INSERT INTO pending_announcement (name) VALUES ('user-preferences')")
            }
            let (kept, subscriptions) = try Self.keptTargets(on: bus)
            #expect(kept.allWatchedRoutes().isEmpty && kept.allPreferredAirports().isEmpty)
            let following = Task { await kept.follow(subscriptions) }
            defer { following.cancel() }
            #expect(await fixture.watchlists.announcePending() == 2)
            #expect(await fixture.subscription.announcePending() == 1)
            // Made: not again.
            #expect(await fixture.watchlists.announcePending() == 0)
            #expect(await fixture.subscription.announcePending() == 0)
            try await waitUntil("search keeps the announced watchlists and preferences") {
                let (keptLines, _) = (try? await Self.keptAndAsked(kept, fixture)) ?? ([], [])
                return keptLines == ["JFK-NRT×1", "LIS-SFO×1", "JFK×1"]
            }
            let (keptLines, asked) = try await Self.keptAndAsked(kept, fixture)
            #expect(keptLines == asked)
        }
    }
}
