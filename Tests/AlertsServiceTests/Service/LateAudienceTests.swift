@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

/// Alerts keeps who an exceptional deal can reach from the subscription and
/// watchlist services' events; a durable event reaches only the nodes that
/// had joined when it was published. An alerts node that joins after users
/// and watchlists were made (a new database) asks for them
/// (`AnnouncementWanted`, ``WantedAnnouncements``) and then keeps what the
/// two services would answer (docs/alerts.md, "The audience of an
/// exceptional deal, and each user's settings").
@Suite("An alerts node that joins late asks for the audience it missed")
struct LateAudienceTests {
    @Test(
        "users and watchlists made before alerts' node joined: its new database asks for them once, and it then keeps what subscription and watchlist answer",
        arguments: MeshShape.allCases
    )
    func lateNodeAsks(shape: MeshShape) async throws {
        let servicesBus = standingBus("hub")
        let fixture = try AlertsFixture(bus: servicesBus, handsAudience: false)
        // Subscription and watchlist run (their outboxes, and they follow AnnouncementWanted).
        let running = [Task { try? await fixture.subscription.run() }, Task { try? await fixture.watchlists.run() }]
        defer { running.forEach { $0.cancel() } }
        // The announcements the services' own migrations made due are made now, with nothing to announce
        // (their runs may start later and would otherwise announce the users below to whoever listens then).
        _ = (await fixture.subscription.announcePending(), await fixture.watchlists.announcePending())
        let probe = servicesBus.subscribe([TierChanged.self, WatchlistChanged.self] as [any BusEvent.Type], bufferSize: 256)
        let ana = try await fixture.user("ana@example.com", tier: .pro, airports: ["JFK"])
        let bo = try await fixture.user("bo@example.com", tier: .pro, airports: ["LIS"])
        try await AudienceFollowTests.watch(fixture, ana, "JFK", "NRT")
        try await AudienceFollowTests.watch(fixture, bo, "LIS", "SFO", cabin: .business)
        // The outboxes publish after their commits: the late node must not subscribe before they did (it would
        // then hear the events themselves). Each publishes in commit order, so their last events say so.
        try await withTimeLimit("the two services published what they made") {
            var (tier, watch) = (false, false)
            for await delivery in probe {
                if let change = delivery.event as? TierChanged, change.userID == bo, change.current == .pro { tier = true }
                if let change = delivery.event as? WatchlistChanged, change.watchlist.userID == bo { watch = true }
                if tier && watch { break }
            }
        }
        probe.cancel()

        // Alerts' node joins now, with a new database (its migrations want the announcements).
        let alertsBus = shape == .oneProcess ? servicesBus : standingBus("spoke")
        let database = try AlertsFixture.database("alerts", AlertsServiceEntry.migrations)
        #expect(try database.wantedAnnouncements() == [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
        let kept = KeptAudience(database: database, transport: .system, logger: quietLogger())
        let subscriptions = KeptAudience.Subscriptions(on: alertsBus)
        try await withJoinedBuses(shape, server: servicesBus, client: alertsBus) { _ in
            let following = Task { await kept.follow(subscriptions) }
            defer { following.cancel() }
            #expect(try kept.counts() == (users: 0, watchlists: 0), "nothing published before it joined reached it")

            let asked = await WantedAnnouncements.ask(consumer: "alerts", database: database, bus: alertsBus, joined: {}, logger: quietLogger())
            #expect(asked == [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
            try await waitUntil("alerts keeps the two users and their watchlists", limit: .seconds(20)) { ((try? kept.counts()) ?? (0, 0)) == (2, 2) }
            let (keptLines, askedLines) = try await AudienceFollowTests.keptAndAsked(kept, fixture)
            #expect(keptLines == askedLines)
            #expect(keptLines.contains("JFK: \(ana)×1.0") && keptLines.contains("LIS-SFO/business: \(bo)"))

            #expect(try database.wantedAnnouncements().isEmpty, "asked once: forgotten once published")
            #expect(await WantedAnnouncements.ask(consumer: "alerts", database: database, bus: alertsBus, joined: {}, logger: quietLogger()).isEmpty)
        }
    }

    @Test("the alerts service asks at its start, once its node has joined; the want names what it keeps")
    func serviceAsksOnceJoined() async throws {
        let bus = standingBus("one")
        let wants = bus.subscribe(AnnouncementWanted.self)
        let (entered, joined) = (Locked(false), Locked(false))
        let database = try AlertsFixture.database("alerts", AlertsServiceEntry.migrations)
        let alerts = AlertsService(
            database: database, bus: bus, clock: ManualWallClock(AlertsFixture.noonNewYork), channels: [RecordingChannel()],
            backoff: { _, _ in .seconds(1) },
            joined: {
                entered.set(true)
                try? await waitUntil("the test says the node joined", limit: .seconds(60)) { joined.get() }
            },
            logger: quietLogger())
        let running = Task { try? await alerts.run() }
        defer { running.cancel() }
        // The service waits in `joined`: it has published nothing yet.
        try await waitUntil("the service waits for its node to join") { entered.get() }
        #expect(wants.bufferedCount == 0, "no want before the node joined")
        #expect(try database.wantedAnnouncements().count == 2)
        joined.set(true)
        let want = try #require(try await firstEvents(1, of: wants).first)
        #expect(want.consumer == "alerts" && want.announcements == [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
        try await waitUntil("the want forgotten once published") { ((try? database.wantedAnnouncements()) ?? ["?"]).isEmpty }
    }
}
