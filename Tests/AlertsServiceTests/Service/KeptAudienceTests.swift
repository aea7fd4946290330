@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// Alerts keeps who an exceptional deal can reach from the watchlist and
/// subscription services' events, never asking them: each event is the
/// state after it, applied once or twice alike, never over a newer one, and
/// nothing comes back for a deleted user.
@Suite("Exceptional-deal audience kept from events")
struct KeptAudienceTests {
    static func audience() throws -> KeptAudience {
        KeptAudience(database: try AlertsFixture.database("alerts", AlertsServiceEntry.migrations), transport: .system, logger: quietLogger())
    }

    static func watchlist(
        _ id: String, user: String, _ origin: String, _ destination: String, cabin: Cabin = .economy, active: Bool = true,
        change: WatchlistChanged.Change = .created, at ms: Int64
    ) -> WatchlistChanged {
        var event = WatchlistChanged()
        event.change = change
        (event.watchlist.watchlistID, event.watchlist.userID) = (id, user)
        (event.watchlist.origin, event.watchlist.destination, event.watchlist.cabin, event.watchlist.active) = (origin, destination, cabin, active)
        event.atUnixMs = ms
        return event
    }

    static func preferences(_ user: String, _ airports: [(String, Double)], at ms: Int64, tier: Tier = .free, cap: Int32 = 3) -> UserPreferencesChanged {
        var event = UserPreferencesChanged()
        event.userID = user
        event.timeZone = "Europe/London"
        event.tier = tier
        event.entitlements.immediateAlertsPerDay = cap
        event.preferredAirports = airports.map { code, weight in
            var airport = PreferredAirport()
            (airport.code, airport.weight) = (code, weight)
            return airport
        }
        event.atUnixMs = ms
        return event
    }

    static func deleted(_ user: String, at ms: Int64) -> UserDeleted {
        var event = UserDeleted()
        (event.userID, event.atUnixMs) = (user, ms)
        return event
    }

    static func preferring(_ audience: KeptAudience, _ airport: String, orMetro metro: String? = nil) async throws -> [String] {
        try await audience.preferring(airport, orMetro: metro).map { "\($0.userID)×\($0.weight)" }
    }

    @Test("who prefers an airport or its metro: once each with the higher weight, in user-id order; a newer event replaces the airports, an older one is not applied, one applied twice changes nothing")
    func preferredAirports() async throws {
        let audience = try Self.audience()
        await audience.apply(Self.preferences("u-2", [("LHR", 0.25), ("LON", 0.75)], at: 10))
        await audience.apply(Self.preferences("u-1", [("LCY", 1)], at: 10))
        await audience.apply(Self.preferences("u-3", [("JFK", 1)], at: 10))
        #expect(try await Self.preferring(audience, "LHR", orMetro: "LON") == ["u-2×0.75"])
        #expect(try await Self.preferring(audience, "LCY", orMetro: "LON") == ["u-1×1.0", "u-2×0.75"])
        #expect(try await Self.preferring(audience, "LHR") == ["u-2×0.25"])
        // u-2 now prefers JFK only; an older event arriving late changes nothing, nor does the newer one again.
        await audience.apply(Self.preferences("u-2", [("JFK", 1)], at: 20))
        await audience.apply(Self.preferences("u-2", [("LHR", 1)], at: 15))
        await audience.apply(Self.preferences("u-2", [("JFK", 1)], at: 20))
        #expect(try await Self.preferring(audience, "LHR", orMetro: "LON").isEmpty)
        #expect(try await Self.preferring(audience, "JFK") == ["u-2×1.0", "u-3×1.0"])
        #expect(try audience.counts() == (users: 3, watchlists: 0))
    }

    @Test("who watches a route: active watchlists only, by any of the codes given for each end, in the cabin asked (unspecified: economy); a deactivation, a deletion and an older event")
    func watchers() async throws {
        let audience = try Self.audience()
        await audience.apply(Self.watchlist("w-1", user: "u-1", "LON", "NRT", at: 1))
        await audience.apply(Self.watchlist("w-2", user: "u-2", "LHR", "NRT", at: 1))
        await audience.apply(Self.watchlist("w-3", user: "u-3", "LHR", "NRT", cabin: .business, at: 1))
        await audience.apply(Self.watchlist("w-4", user: "u-4", "LHR", "NRT", cabin: .unspecified, at: 1))
        await audience.apply(Self.watchlist("w-5", user: "u-5", "LHR", "NRT", active: false, at: 1))
        #expect(try await audience.watchers(origins: ["LHR", "LON"], destinations: ["NRT"], cabin: .economy) == ["u-1", "u-2", "u-4"])
        #expect(try await audience.watchers(origins: ["LHR"], destinations: ["NRT"], cabin: .unspecified) == ["u-2", "u-4"])
        #expect(try await audience.watchers(origins: ["LHR"], destinations: ["NRT"], cabin: .business) == ["u-3"])
        await audience.apply(Self.watchlist("w-2", user: "u-2", "LHR", "NRT", active: false, change: .deactivated, at: 5))
        await audience.apply(Self.watchlist("w-1", user: "u-1", "LON", "NRT", change: .deleted, at: 5))
        // Late: the creation of w-2 again (older than its deactivation), and w-5's activation announced.
        await audience.apply(Self.watchlist("w-2", user: "u-2", "LHR", "NRT", at: 2))
        await audience.apply(Self.watchlist("w-5", user: "u-5", "LHR", "NRT", change: .announced, at: 6))
        #expect(try await audience.watchers(origins: ["LHR", "LON"], destinations: ["NRT"], cabin: .economy) == ["u-4", "u-5"])
        #expect(try audience.counts() == (users: 0, watchlists: 4))
    }

    @Test("a deleted watchlist stays deleted: its creation or an update delivered again after the deletion (a lost acknowledgement), in the same millisecond or earlier, brings nothing back")
    func deletedWatchlistStaysDeleted() async throws {
        let audience = try Self.audience()
        await audience.apply(Self.watchlist("w-1", user: "u-1", "JFK", "NRT", at: 5))
        await audience.apply(Self.watchlist("w-2", user: "u-1", "LIS", "SFO", at: 5))
        await audience.apply(Self.watchlist("w-1", user: "u-1", "JFK", "NRT", change: .deleted, at: 5))
        await audience.apply(Self.watchlist("w-2", user: "u-1", "LIS", "SFO", change: .deleted, at: 7))
        // Delivered again after the deletions.
        await audience.apply(Self.watchlist("w-1", user: "u-1", "JFK", "NRT", at: 5))
        await audience.apply(Self.watchlist("w-2", user: "u-1", "LIS", "SFO", change: .updated, at: 6))
        await audience.apply(Self.watchlist("w-2", user: "u-1", "LIS", "SFO", change: .deleted, at: 7))
        #expect(try await audience.watchers(origins: ["JFK"], destinations: ["NRT"], cabin: .economy).isEmpty)
        #expect(try await audience.watchers(origins: ["LIS"], destinations: ["SFO"], cabin: .economy).isEmpty)
        #expect(try audience.counts() == (users: 0, watchlists: 0))
    }

    @Test("two changes of one watchlist in one millisecond: the later in its publisher's sequence stands, whichever arrives last; from another publisher, arrival order decides")
    func sameMillisecondOrderedBySequence() async throws {
        let outbox = "watchlist.outbox#a1"
        let created = Self.watchlist("w-1", user: "u-1", "JFK", "NRT", at: 5)
        let deactivated = Self.watchlist("w-1", user: "u-1", "JFK", "NRT", active: false, change: .deactivated, at: 5)
        // In order, then the creation delivered again (a lost acknowledgement).
        let again = try Self.audience()
        await again.apply(created, id: EventID(publisher: outbox, sequence: 7))
        await again.apply(deactivated, id: EventID(publisher: outbox, sequence: 8))
        await again.apply(created, id: EventID(publisher: outbox, sequence: 7))
        #expect(try await again.watchers(origins: ["JFK"], destinations: ["NRT"], cabin: .economy).isEmpty)
        // The later first.
        let reversed = try Self.audience()
        await reversed.apply(deactivated, id: EventID(publisher: outbox, sequence: 8))
        await reversed.apply(created, id: EventID(publisher: outbox, sequence: 7))
        #expect(try await reversed.watchers(origins: ["JFK"], destinations: ["NRT"], cabin: .economy).isEmpty)
        // Another publisher's sequence says nothing of this one's: the one applied last stands.
        let twoPublishers = try Self.audience()
        await twoPublishers.apply(deactivated, id: EventID(publisher: outbox, sequence: 8))
        await twoPublishers.apply(created, id: EventID(publisher: "watchlist.outbox#b2", sequence: 1))
        #expect(try await twoPublishers.watchers(origins: ["JFK"], destinations: ["NRT"], cabin: .economy) == ["u-1"])
    }

    @Test("a deleted user's airports and watchlists are forgotten, and no event arriving after the deletion brings them back")
    func deletedUser() async throws {
        let audience = try Self.audience()
        await audience.apply(Self.preferences("u-1", [("JFK", 1)], at: 1))
        await audience.apply(Self.watchlist("w-1", user: "u-1", "JFK", "NRT", at: 1))
        await audience.apply(Self.deleted("u-1", at: 5))
        // The two services' events reach alerts in no common order: both of these arrive after the deletion.
        await audience.apply(Self.preferences("u-1", [("JFK", 1)], at: 9))
        await audience.apply(Self.watchlist("w-2", user: "u-1", "JFK", "NRT", at: 9))
        #expect(try await Self.preferring(audience, "JFK").isEmpty)
        #expect(try await audience.watchers(origins: ["JFK"], destinations: ["NRT"], cabin: .economy).isEmpty)
        #expect(try audience.counts() == (users: 0, watchlists: 0))
    }

    static func tierChanged(_ user: String, _ tier: Tier, cap: Int32, at ms: Int64) -> TierChanged {
        var event = TierChanged()
        (event.userID, event.current, event.entitlements.immediateAlertsPerDay, event.atUnixMs) = (user, tier, cap, ms)
        return event
    }

    static func settings(_ audience: KeptAudience, _ user: String) async throws -> String? {
        guard let record = try await audience.users([user]).known.first else { return nil }
        let (subscriber, entitlements) = record.asSubscriptionUser
        let quiet = subscriber.hasQuietHours
            ? (subscriber.quietHours.disabled ? "off" : "\(subscriber.quietHours.start.hour):\(subscriber.quietHours.start.minute)–\(subscriber.quietHours.end.hour):\(subscriber.quietHours.end.minute)")
            : "default"
        return "\(subscriber.timeZone) \(quiet) \(subscriber.tier) cap \(entitlements.immediateAlertsPerDay) \(subscriber.currency.isEmpty ? "-" : subscriber.currency)"
    }

    @Test("in the same millisecond a TierChanged's tier stands over a UserPreferencesChanged's, whichever arrives first (a user made on a trial and upgraded at once)")
    func tierChangedStandsOnATie() async throws {
        let audience = try Self.audience()
        await audience.apply(Self.tierChanged("u-1", .pro, cap: 6, at: 10))
        await audience.apply(Self.preferences("u-1", [("JFK", 1)], at: 10, tier: .trial, cap: 6))
        await audience.apply(Self.preferences("u-2", [("JFK", 1)], at: 10, tier: .trial, cap: 6))
        await audience.apply(Self.tierChanged("u-2", .pro, cap: 6, at: 10))
        #expect(try await Self.settings(audience, "u-1")?.contains(" pro cap 6 ") == true)
        #expect(try await Self.settings(audience, "u-2")?.contains(" pro cap 6 ") == true)
        // A later preferences event carries the tier it was written with, and applies.
        await audience.apply(Self.preferences("u-1", [("JFK", 1)], at: 11, tier: .free, cap: 3))
        #expect(try await Self.settings(audience, "u-1")?.contains(" free cap 3 ") == true)
    }

    @Test("a user's alert settings: time zone, quiet hours and currency from UserPreferencesChanged; the tier and its cap from the newer of it and TierChanged; a tier alone is no user yet; an event without a tier (before this release) leaves the tier")
    func userSettings() async throws {
        let audience = try Self.audience()
        // A tier heard before the preferences: not a user alerts can decide for yet.
        await audience.apply(Self.tierChanged("u-1", .trial, cap: 6, at: 10))
        #expect(try await Self.settings(audience, "u-1") == nil)
        #expect(try await audience.users(["u-1"]).deleted.isEmpty)
        var preferences = Self.preferences("u-1", [("JFK", 1)], at: 10, tier: .trial, cap: 6)
        preferences.timeZone = "America/New_York"
        preferences.quietHours.start.hour = 23
        preferences.quietHours.end.hour = 6
        preferences.quietHours.end.minute = 30
        preferences.currency = "EUR"
        await audience.apply(preferences)
        #expect(try await Self.settings(audience, "u-1") == "America/New_York 23:0–6:30 trial cap 6 EUR")
        // The trial expires (TierChanged at 20); a preferences event written at 15 arrives after it: its settings are
        // newer than those kept (10) and apply, its tier is older than the one kept and does not.
        await audience.apply(Self.tierChanged("u-1", .free, cap: 3, at: 20))
        await audience.apply(Self.preferences("u-1", [("JFK", 1)], at: 15, tier: .trial, cap: 6))
        #expect(try await Self.settings(audience, "u-1") == "Europe/London default free cap 3 -")
        // One older than the settings kept (12 < 15) changes nothing.
        preferences.atUnixMs = 12
        await audience.apply(preferences)
        #expect(try await Self.settings(audience, "u-1") == "Europe/London default free cap 3 -")
        // Newer preferences (quiet hours off, no currency) keep the newer tier's cap; one naming no tier leaves it.
        var later = Self.preferences("u-1", [("JFK", 1)], at: 30, tier: .free, cap: 3)
        later.timeZone = "Europe/Lisbon"
        later.quietHours.disabled = true
        await audience.apply(later)
        #expect(try await Self.settings(audience, "u-1") == "Europe/Lisbon off free cap 3 -")
        var untiered = Self.preferences("u-1", [("JFK", 1)], at: 40, tier: .unspecified, cap: 0)
        untiered.timeZone = "Asia/Tokyo"
        await audience.apply(untiered)
        #expect(try await Self.settings(audience, "u-1") == "Asia/Tokyo default free cap 3 -")
        // A newer TierChanged (Pro at 35) applies; one older than it (33) does not.
        await audience.apply(Self.tierChanged("u-1", .pro, cap: 6, at: 35))
        await audience.apply(Self.tierChanged("u-1", .free, cap: 3, at: 33))
        #expect(try await Self.settings(audience, "u-1") == "Asia/Tokyo default pro cap 6 -")
        // Deleted: skipped at once, its settings erased.
        await audience.apply(Self.deleted("u-1", at: 50))
        #expect(try await audience.users(["u-1"]).deleted == ["u-1"])
        let erased = try await audience.database.writer.read { db in try AudienceUserRecord.fetchOne(db, key: "u-1") }
        #expect(erased?.timeZone == "" && erased?.currency == "" && erased?.deletedAtUnixMs == 50)
    }

    @Test("follow() orders one watchlist's changes in one millisecond by their events' ids: a creation arriving after its deactivation (same millisecond, earlier in the outbox) brings nothing back")
    func followOrdersByEventID() async throws {
        let bus = MessageBus()
        let audience = try Self.audience()
        let subscriptions = KeptAudience.Subscriptions(on: bus)
        let following = Task { await audience.follow(subscriptions) }
        try await withTimeLimit("the events were kept") {
            let outbox = "watchlist.outbox#a1"
            try await bus.publish(
                Self.watchlist("w-1", user: "u-1", "JFK", "NRT", active: false, change: .deactivated, at: 5),
                id: EventID(publisher: outbox, sequence: 8), traceID: .random(), onSettled: {})
            try await bus.publish(Self.watchlist("w-1", user: "u-1", "JFK", "NRT", at: 5), id: EventID(publisher: outbox, sequence: 7), traceID: .random(), onSettled: {})
            // A marker after both, from the same stream: once it is kept, both were applied.
            try await bus.publish(Self.watchlist("w-2", user: "u-2", "LIS", "SFO", at: 6), id: EventID(publisher: outbox, sequence: 9), traceID: .random(), onSettled: {})
            try await waitUntil("the marker was applied") {
                (try? await audience.watchers(origins: ["LIS"], destinations: ["SFO"], cabin: .economy)) == ["u-2"]
            }
            #expect(try await audience.watchers(origins: ["JFK"], destinations: ["NRT"], cabin: .economy).isEmpty)
        }
        following.cancel()
        try await withTimeLimit("follow() returned") { await following.value }
    }
}
