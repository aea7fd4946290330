import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

/// Search keeps the sweep's targets from the watchlist and subscription
/// services' events, never asking them (docs/architecture.md): each event
/// is the state after it, applied once or twice alike, never over a newer
/// one, and nothing comes back for a deleted user.
@Suite("Sweep targets kept from events")
struct KeptSweepTargetsTests {
    static func targets(watchedLimit: Int = 10, airportLimit: Int = 10) throws -> KeptSweepTargets {
        KeptSweepTargets(
            database: try ServiceDatabase.inMemory(service: "search", migrations: SearchServiceEntry.migrations),
            watchedLimit: watchedLimit, airportLimit: airportLimit, logger: quietLogger()
        )
    }

    static func watchlistChanged(
        _ id: String, user: String, _ origin: String, _ destination: String, cabin: Cabin = .economy, active: Bool = true,
        change: WatchlistChanged.Change = .created, at ms: Int64
    ) -> WatchlistChanged {
        var event = WatchlistChanged()
        event.change = change
        event.watchlist.watchlistID = id
        event.watchlist.userID = user
        event.watchlist.origin = origin
        event.watchlist.destination = destination
        event.watchlist.cabin = cabin
        event.watchlist.active = active
        event.atUnixMs = ms
        return event
    }

    static func preferences(_ user: String, _ codes: [String], at ms: Int64, announced: Bool = false) -> UserPreferencesChanged {
        var event = UserPreferencesChanged()
        event.userID = user
        event.preferredAirports = codes.map { code in
            var airport = PreferredAirport()
            airport.code = code
            airport.weight = 1 / Double(codes.count)
            return airport
        }
        event.atUnixMs = ms
        event.announced = announced
        return event
    }

    static func deleted(_ user: String, at ms: Int64) -> UserDeleted {
        var event = UserDeleted()
        event.userID = user
        event.atUnixMs = ms
        return event
    }

    static func routes(_ targets: KeptSweepTargets) -> [String] {
        targets.allWatchedRoutes().map { "\($0.route)×\($0.watchers)" }
    }

    @Test("active watchlists count per route, most watched first; inactive, deleted and announced ones as they stand")
    func watchedRoutes() async throws {
        let targets = try Self.targets(watchedLimit: 2)
        targets.apply(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 1))
        targets.apply(Self.watchlistChanged("w-2", user: "u-2", "JFK", "NRT", at: 2))
        targets.apply(Self.watchlistChanged("w-3", user: "u-2", "LIS", "SFO", cabin: .business, at: 3))
        targets.apply(Self.watchlistChanged("w-4", user: "u-2", "BOS", "CDG", at: 4))
        targets.apply(Self.watchlistChanged("w-4", user: "u-2", "BOS", "CDG", active: false, change: .deactivated, at: 5))
        targets.apply(Self.watchlistChanged("w-5", user: "u-3", "AAA", "BBB", change: .announced, at: 6))
        targets.apply(Self.watchlistChanged("w-6", user: "u-3", "LHR", "SYD", at: 7))
        targets.apply(Self.watchlistChanged("w-6", user: "u-3", "LHR", "SYD", change: .deleted, at: 8))
        #expect(Self.routes(targets) == ["JFK-NRT×2", "AAA-BBB×1", "LIS-SFO/business×1"])
        // The sweep takes at most its limit.
        #expect(await targets.watchedRoutes().map(\.description) == ["JFK-NRT", "AAA-BBB"])
    }

    @Test("an event applied twice changes nothing, and one older than what is kept is not applied over it")
    func idempotentAndOrdered() throws {
        let targets = try Self.targets()
        let moved = Self.watchlistChanged("w-1", user: "u-1", "JFK", "LAX", change: .updated, at: 20)
        targets.apply(moved)
        targets.apply(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 10))
        targets.apply(moved)
        #expect(Self.routes(targets) == ["JFK-LAX×1"])

        targets.apply(Self.preferences("u-1", ["LIS", "OPO"], at: 20))
        targets.apply(Self.preferences("u-1", ["MAD"], at: 10))
        targets.apply(Self.preferences("u-1", ["LIS", "OPO"], at: 20))
        #expect(targets.allPreferredAirports().map(\.airport) == ["LIS", "OPO"])
    }

    @Test("preferred airports: a user's list replaces the last, counted per airport, most preferred first, within the limit")
    func preferredAirports() async throws {
        let targets = try Self.targets(airportLimit: 2)
        targets.apply(Self.preferences("u-1", ["LIS", "JFK"], at: 1))
        targets.apply(Self.preferences("u-2", ["JFK", "BOS", "JFK"], at: 1))
        targets.apply(Self.preferences("u-3", ["SFO"], at: 1))
        targets.apply(Self.preferences("u-3", ["BOS"], at: 2, announced: true))
        // Ties in code order, as PreferredAirportSummary answers.
        #expect(targets.allPreferredAirports().map { "\($0.airport)×\($0.users)" } == ["BOS×2", "JFK×2", "LIS×1"])
        #expect(await targets.preferredAirports() == ["BOS", "JFK"])
        targets.apply(Self.preferences("u-2", [], at: 3))
        #expect(targets.allPreferredAirports().map { "\($0.airport)×\($0.users)" } == ["BOS×1", "JFK×1", "LIS×1"])
    }

    @Test("a deleted watchlist stays deleted: its creation or an update delivered again after the deletion (a lost acknowledgement), in the same millisecond or earlier, brings nothing back")
    func deletedWatchlistStaysDeleted() throws {
        let targets = try Self.targets()
        targets.apply(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 5))
        targets.apply(Self.watchlistChanged("w-2", user: "u-1", "LIS", "SFO", at: 5))
        targets.apply(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", change: .deleted, at: 5))
        targets.apply(Self.watchlistChanged("w-2", user: "u-1", "LIS", "SFO", change: .deleted, at: 7))
        // Delivered again after the deletions.
        targets.apply(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 5))
        targets.apply(Self.watchlistChanged("w-2", user: "u-1", "LIS", "SFO", change: .updated, at: 6))
        targets.apply(Self.watchlistChanged("w-2", user: "u-1", "LIS", "SFO", change: .deleted, at: 7))
        #expect(Self.routes(targets).isEmpty)
    }

    @Test("two changes of one watchlist in one millisecond: the later in its publisher's sequence stands, whichever arrives last; from another publisher, arrival order decides")
    func sameMillisecondOrderedBySequence() throws {
        let outbox = "watchlist.outbox#a1"
        let created = Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 5)
        let deactivated = Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", active: false, change: .deactivated, at: 5)
        // In order, then the creation delivered again (a lost acknowledgement).
        let again = try Self.targets()
        again.apply(created, id: EventID(publisher: outbox, sequence: 7))
        again.apply(deactivated, id: EventID(publisher: outbox, sequence: 8))
        again.apply(created, id: EventID(publisher: outbox, sequence: 7))
        #expect(Self.routes(again).isEmpty)
        // The later first.
        let reversed = try Self.targets()
        reversed.apply(deactivated, id: EventID(publisher: outbox, sequence: 8))
        reversed.apply(created, id: EventID(publisher: outbox, sequence: 7))
        #expect(Self.routes(reversed).isEmpty)
        // Another publisher's sequence says nothing of this one's: the one applied last stands.
        let twoPublishers = try Self.targets()
        twoPublishers.apply(deactivated, id: EventID(publisher: outbox, sequence: 8))
        twoPublishers.apply(created, id: EventID(publisher: "watchlist.outbox#b2", sequence: 1))
        #expect(Self.routes(twoPublishers) == ["JFK-NRT×1"])
    }

    @Test("a deleted user's watchlists and airports are forgotten, and an event of theirs arriving later brings nothing back")
    func deletedUser() throws {
        let targets = try Self.targets()
        targets.apply(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 1))
        targets.apply(Self.watchlistChanged("w-2", user: "u-2", "LIS", "SFO", at: 1))
        targets.apply(Self.preferences("u-1", ["LIS"], at: 1))
        targets.apply(Self.deleted("u-1", at: 5))
        #expect(Self.routes(targets) == ["LIS-SFO×1"])
        #expect(targets.allPreferredAirports().isEmpty)
        // Published by the watchlist service before it erased them, reaching search after the deletion.
        targets.apply(Self.watchlistChanged("w-3", user: "u-1", "BOS", "CDG", at: 4))
        targets.apply(Self.preferences("u-1", ["OPO"], at: 6))
        #expect(Self.routes(targets) == ["LIS-SFO×1"])
        #expect(targets.allPreferredAirports().isEmpty)
    }

    @Test("follow() applies the durable events published on the bus, and returns when cancelled")
    func followsTheBus() async throws {
        try await Self.following { bus, targets in
            try await bus.publish(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 1))
            try await bus.publish(Self.preferences("u-2", ["LIS"], at: 1))
            try await bus.publish(Self.watchlistChanged("w-2", user: "u-2", "JFK", "NRT", at: 2))
            try await bus.publish(Self.deleted("u-1", at: 3))
            try await waitUntil("the four events were applied") {
                Self.routes(targets) == ["JFK-NRT×1"] && targets.allPreferredAirports().map(\.airport) == ["LIS"]
            }
        }
    }

    @Test("follow() orders one watchlist's changes in one millisecond by their events' ids: a creation arriving after its deactivation (same millisecond, earlier in the outbox) brings nothing back")
    func followOrdersByEventID() async throws {
        try await Self.following { bus, targets in
            let outbox = "watchlist.outbox#a1"
            try await bus.publish(
                Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", active: false, change: .deactivated, at: 5),
                id: EventID(publisher: outbox, sequence: 8), traceID: .random(), onSettled: {})
            try await bus.publish(Self.watchlistChanged("w-1", user: "u-1", "JFK", "NRT", at: 5), id: EventID(publisher: outbox, sequence: 7), traceID: .random(), onSettled: {})
            // A marker after both, from the same stream: once it is kept, both were applied.
            try await bus.publish(Self.watchlistChanged("w-2", user: "u-2", "LIS", "SFO", at: 6), id: EventID(publisher: outbox, sequence: 9), traceID: .random(), onSettled: {})
            try await waitUntil("the marker was applied") { Self.routes(targets).contains("LIS-SFO×1") }
            #expect(Self.routes(targets) == ["LIS-SFO×1"])
        }
    }

    /// Runs `body` (bounded) with a bus and targets following it, then
    /// cancels the following and expects `follow()` to return.
    static func following(_ body: @escaping @Sendable (MessageBus, KeptSweepTargets) async throws -> Void) async throws {
        let bus = MessageBus()
        let targets = try Self.targets()
        let subscriptions = KeptSweepTargets.Subscriptions(on: bus)
        let following = Task { await targets.follow(subscriptions) }
        try await withTimeLimit("the events were kept") { try await body(bus, targets) }
        following.cancel()
        try await withTimeLimit("follow() returned") { await following.value }
    }
}
