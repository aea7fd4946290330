import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
@testable import SearchService
@testable import SubscriptionService
import Testing
@testable import WatchlistService

/// Search keeps the routes and airports it sweeps from the watchlist and
/// subscription services' events; a durable event reaches only the nodes
/// that had joined when it was published. A search node that joins after
/// watchlists and preferences were made (a new database) asks for them
/// (`AnnouncementWanted`, ``WantedAnnouncements``) and then keeps what the
/// two services would answer (docs/search.md, "Market sweep").
@Suite("A search node that joins late asks for the sweep targets it missed")
struct LateSweepTargetsTests {
    @Test(
        "watchlists and preferences made before search's node joined: its new database asks for them once, and it then keeps what watchlist and subscription answer",
        arguments: MeshShape.allCases
    )
    func lateNodeAsks(shape: MeshShape) async throws {
        let servicesBus = standingBus("hub")
        let fixture = try WatchlistFixture(bus: servicesBus)
        try await fixture.running {
            // The announcements the services' own migrations made due are made now, with nothing to announce
            // (their runs may start later and would otherwise announce what follows to whoever listens then).
            _ = (await fixture.subscription.announcePending(), await fixture.watchlists.announcePending())
            let probe = servicesBus.subscribe([UserPreferencesChanged.self, WatchlistChanged.self] as [any BusEvent.Type], bufferSize: 256)
            let ana = try await fixture.user()
            _ = try await fixture.watchlists.create(addRequest(ana, "JFK", "NRT"))
            _ = try await fixture.watchlists.create(addRequest(ana, "LIS", "SFO") { $0.cabin = .business })
            try await SweepTargetsFollowTests.prefer(fixture, ana, ["JFK", "LGA"])
            // The outboxes publish after their commits: the late node must not subscribe before they did (it would
            // then hear the events themselves). Each publishes in commit order, so their last events say so.
            try await withTimeLimit("the two services published what they made") {
                var (preferences, watch) = (false, false)
                for await delivery in probe {
                    if let change = delivery.event as? UserPreferencesChanged, change.preferredAirports.count == 2 { preferences = true }
                    if let change = delivery.event as? WatchlistChanged, change.watchlist.origin == "LIS" { watch = true }
                    if preferences && watch { break }
                }
            }
            probe.cancel()

            // Search's node joins now, with a new database (its migrations want the announcements).
            let searchBus = shape == .oneProcess ? servicesBus : standingBus("spoke")
            let database = try ServiceDatabase.inMemory(service: "search", migrations: SearchServiceEntry.migrations)
            #expect(try database.wantedAnnouncements() == [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
            let kept = KeptSweepTargets(database: database, watchedLimit: 10, airportLimit: 10, logger: quietLogger())
            let subscriptions = KeptSweepTargets.Subscriptions(on: searchBus)
            try await withJoinedBuses(shape, server: servicesBus, client: searchBus) { _ in
                let following = Task { await kept.follow(subscriptions) }
                defer { following.cancel() }
                #expect(kept.allWatchedRoutes().isEmpty && kept.allPreferredAirports().isEmpty, "nothing published before it joined reached it")

                let asked = await WantedAnnouncements.ask(consumer: "search", database: database, bus: searchBus, joined: {}, logger: quietLogger())
                #expect(asked == [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
                try await waitUntil("search keeps the announced watchlists and preferences", limit: .seconds(20)) {
                    let (keptLines, _) = (try? await SweepTargetsFollowTests.keptAndAsked(kept, fixture)) ?? ([], [])
                    return keptLines == ["JFK-NRT×1", "LIS-SFO/business×1", "JFK×1", "LGA×1"]
                }
                let (keptLines, askedLines) = try await SweepTargetsFollowTests.keptAndAsked(kept, fixture)
                #expect(keptLines == askedLines)
                #expect(try database.wantedAnnouncements().isEmpty, "asked once: forgotten once published")
            }
        }
    }
}
