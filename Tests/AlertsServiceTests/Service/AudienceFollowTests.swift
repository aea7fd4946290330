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
/// watchlist services' events instead of asking them (issue #64's one-way
/// request graph, docs/architecture.md): what it keeps must be what they
/// would have answered (`PreferredAirportUsers`, `RouteWatchers`), in one
/// process and with alerts on another node.
@Suite("Alerts' exceptional-deal audience follows the subscription and watchlist services")
struct AudienceFollowTests {
    final class Holder: Sendable {
        let fixture = Locked<AlertsFixture?>(nil)
        let kept = Locked<(KeptAudience, KeptAudience.Subscriptions)?>(nil)
    }

    static func keptAudience(on bus: MessageBus) throws -> (KeptAudience, KeptAudience.Subscriptions) {
        let database = try AlertsFixture.database("alerts", AlertsServiceEntry.migrations)
        return (KeptAudience(database: database, transport: .system, logger: quietLogger()), KeptAudience.Subscriptions(on: bus))
    }

    static let airports = ["JFK", "LIS", "SYD", "LHR", "DEL", "SFO"]
    static let routes: [(String, String, Cabin)] = [("JFK", "NRT", .economy), ("LIS", "SFO", .business), ("LIS", "SFO", .economy), ("DEL", "CDG", .economy), ("LHR", "SYD", .economy), ("LAX", "SFO", .economy), ("SFO", "LAX", .economy)]

    /// What alerts keeps, and what the two services answer when asked, as comparable lines.
    static func keptAndAsked(_ kept: KeptAudience, _ fixture: AlertsFixture) async throws -> (kept: [String], asked: [String]) {
        var keptLines: [String] = [], askedLines: [String] = []
        for airport in airports {
            keptLines += try await kept.preferring(airport, orMetro: nil).map { "\(airport): \($0.userID)×\($0.weight)" }
            var request = PreferredAirportUsersRequest()
            request.airport = airport
            askedLines += try await fixture.subscription.preferredAirportUsers(request).users.map { "\(airport): \($0.userID)×\($0.weight)" }
        }
        for (origin, destination, cabin) in routes {
            keptLines += try await kept.watchers(origins: [origin], destinations: [destination], cabin: cabin).sorted().map { "\(origin)-\(destination)/\(cabin): \($0)" }
            var request = RouteWatchersRequest()
            (request.origins, request.destinations, request.cabin) = ([origin], [destination], cabin)
            askedLines += try await fixture.watchlists.routeWatchers(request).userIds.map { "\(origin)-\(destination)/\(cabin): \($0)" }
        }
        // Each user's alert settings, for the users subscription knows and those it does not (deleted).
        let userIDs = try await fixture.subscription.listUsers(ListUsersRequest()).users.map(\.userID).sorted() + ["u-unknown"]
        keptLines += try await kept.users(userIDs).known.map { record in
            let (user, entitlements) = record.asSubscriptionUser
            return Self.settingsLine(user, entitlements)
        }.sorted()
        var request = GetUsersRequest()
        request.userIds = userIDs
        askedLines += try await fixture.subscription.users(request).users.map { Self.settingsLine($0.user, $0.entitlements) }.sorted()
        return (keptLines, askedLines)
    }

    /// What alerts' policy reads of a user.
    static func settingsLine(_ user: User, _ entitlements: Entitlements) -> String {
        "\(user.userID): \(user.timeZone) \(QuietHoursWindow(user.hasQuietHours ? user.quietHours : nil).description) \(user.tier) cap \(entitlements.immediateAlertsPerDay) \(user.currency)"
    }

    static func prefer(_ fixture: AlertsFixture, _ user: String, _ codes: [String]) async throws {
        var update = UpdateUserRequest()
        update.userID = user
        update.preferredAirports.airports = codes.enumerated().map { index, code in
            var airport = PreferredAirport()
            airport.code = code
            airport.weight = codes.count == 1 ? 1 : (index == 0 ? 0.5 : 0.5 / Double(codes.count - 1))
            return airport
        }
        _ = try await fixture.subscription.updateUser(update)
    }

    @discardableResult
    static func watch(_ fixture: AlertsFixture, _ user: String, _ origin: String, _ destination: String, cabin: Cabin = .economy) async throws -> String {
        try await fixture.watch(user, origin, destination, cabin: cabin)
    }

    @Test(
        "after creations, a deactivation, a deletion, a currency, a downgrade that trims airports and a deleted user, alerts keeps what the two services answer: who prefers, who watches, each user's settings",
        arguments: MeshShape.allCases
    )
    func keptEqualsAsked(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            // Subscription and watchlist on the client's node; alerts' kept audience on the server's.
            holder.fixture.set(try AlertsFixture(bus: client, handsAudience: false))
            holder.kept.set(try Self.keptAudience(on: server))
        } body: { _ in
            let fixture = try #require(holder.fixture.get())
            let (kept, subscriptions) = try #require(holder.kept.get())
            let following = Task { await kept.follow(subscriptions) }
            defer { following.cancel() }
            try await fixture.publishing(watchlistService: true) {
                let ana = try await fixture.user("ana@example.com", tier: .pro, airports: ["JFK"])
                let bo = try await fixture.user("bo@example.com", tier: .pro, airports: ["LIS"])
                let cy = try await fixture.user("cy@example.com", tier: .pro, airports: ["SYD"])
                try await Self.watch(fixture, ana, "JFK", "NRT")
                try await Self.watch(fixture, bo, "JFK", "NRT")
                try await Self.watch(fixture, bo, "LIS", "SFO", cabin: .business)
                let off = try await Self.watch(fixture, bo, "DEL", "CDG")
                var update = UpdateWatchlistRequest()
                (update.watchlistID, update.userID, update.active) = (off, bo, false)
                _ = try await fixture.watchlists.update(update)
                try await fixture.unwatch(ana, try await Self.watch(fixture, ana, "LHR", "SYD"))
                try await Self.watch(fixture, cy, "LAX", "SFO")
                try await Self.prefer(fixture, ana, ["JFK", "LHR", "DEL"])
                try await Self.prefer(fixture, bo, ["LIS", "JFK"])
                var euro = UpdateUserRequest()
                (euro.userID, euro.currency) = (ana, "EUR")
                _ = try await fixture.subscription.updateUser(euro)
                // Free allows one preferred airport: bo keeps LIS.
                var free = SetTierRequest()
                (free.userID, free.tier) = (bo, .free)
                _ = try await fixture.subscription.setTier(free)
                var erase = DeleteUserRequest()
                erase.userID = cy
                _ = try await fixture.subscription.deleteUser(erase)
                // The last change of each service (waitUntilKeptAgrees waits for its effects).
                let dee = try await fixture.user("dee@example.com", tier: .pro, airports: ["SFO"])
                try await Self.watch(fixture, dee, "SFO", "LAX")

                let last = await waitUntilKeptAgrees(
                    "alerts keeps what the services answer", including: ["SFO: \(dee)×1.0", "SFO-LAX/economy: \(dee)"]
                ) { try await Self.keptAndAsked(kept, fixture) }
                #expect(last.agreed, "kept \(last.kept), asked \(last.asked)")
                #expect(last.kept == [
                    "JFK: \(ana)×0.5", "LIS: \(bo)×1.0", "LHR: \(ana)×0.25", "DEL: \(ana)×0.25", "SFO: \(dee)×1.0",
                    "JFK-NRT/economy: \(min(ana, bo))", "JFK-NRT/economy: \(max(ana, bo))", "LIS-SFO/business: \(bo)", "SFO-LAX/economy: \(dee)",
                ] + [
                    "\(ana): America/New_York 22:00–07:00 pro cap 6 EUR", "\(bo): America/New_York 22:00–07:00 free cap 3 ",
                    "\(dee): America/New_York 22:00–07:00 pro cap 6 ",
                ].sorted())
            }
        }
    }

    /// In one process only: across the socket a node's subscriptions are in its hello, so alerts' node
    /// would receive the events from before "the upgrade" too; the announcements cross the socket like
    /// any `WatchlistChanged` and `UserPreferencesChanged` (``keptEqualsAsked(shape:)``).
    @Test("watchlists and preferences from before alerts kept them are announced once at start (the upgrade's migrations, subscription-008 and watchlist-006), and alerts then keeps them")
    func upgradeAnnouncesOnce() async throws {
        let bus = MessageBus()
        let fixture = try AlertsFixture(bus: bus, handsAudience: false)
        try await fixture.publishing {
            // Before the upgrade: nobody keeps them (the kept audience subscribes only below).
            let ana = try await fixture.user("ana@example.com", tier: .pro, airports: ["JFK"])
            try await Self.watch(fixture, ana, "JFK", "NRT")
            try await Self.watch(fixture, ana, "LIS", "SFO")
            // The fixture's databases were created with every migration, so the announcements are due once from that.
            #expect(await fixture.watchlists.announcePending() == 2)
            #expect(await fixture.subscription.announcePending() == 1)
            #expect(await fixture.watchlists.announcePending() == 0, "made: not again")
            #expect(await fixture.subscription.announcePending() == 0, "made: not again")
            // The upgrade's migrations record them as due once more (as on a database the upgrade migrated).
            try await fixture.watchlists.database.writer.write { db in
                try db.execute(sql: "INSERT INTO pending_announcement (name) VALUES (?)", arguments: [WatchlistService.watchlistsAnnouncement])
            }
            try await fixture.subscription.database.writer.write { db in
                try db.execute(sql: "INSERT INTO pending_announcement (name) VALUES (?)", arguments: [SubscriptionService.preferencesAnnouncement])
            }
            let (kept, subscriptions) = try Self.keptAudience(on: bus)
            #expect(try kept.counts() == (users: 0, watchlists: 0))
            let following = Task { await kept.follow(subscriptions) }
            defer { following.cancel() }
            #expect(await fixture.watchlists.announcePending() == 2)
            #expect(await fixture.subscription.announcePending() == 1)
            try await waitUntil("alerts keeps the announced watchlists and preferences") {
                ((try? kept.counts()) ?? (0, 0)) == (1, 2)
            }
            let (keptLines, asked) = try await Self.keptAndAsked(kept, fixture)
            #expect(keptLines == asked)
            #expect(keptLines == ["JFK: \(ana)×1.0", "JFK-NRT/economy: \(ana)", "LIS-SFO/economy: \(ana)", "\(ana): America/New_York 22:00–07:00 pro cap 6 "])
        }
    }

    @Test("the migrations that make the announcements due to alerts are registered: a new database has them pending once each")
    func migrationsMakeThemDue() throws {
        let watchlist = try AlertsFixture.database("watchlist", WatchlistServiceEntry.migrations)
        let subscription = try AlertsFixture.database("subscription", SubscriptionServiceEntry.migrations)
        var names: [String] = []
        WatchlistServiceEntry.migrations.forEachMigration { name, _ in names.append(name) }
        SubscriptionServiceEntry.migrations.forEachMigration { name, _ in names.append(name) }
        #expect(names.contains("watchlist-006-announce-watchlists-to-alerts") && names.contains("subscription-008-announce-preferences-to-alerts"))
        #expect(try watchlist.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM pending_announcement") } == [WatchlistService.watchlistsAnnouncement])
        #expect(try subscription.writer.read { db in try String.fetchAll(db, sql: "SELECT name FROM pending_announcement") } == [SubscriptionService.preferencesAnnouncement])
    }
}
