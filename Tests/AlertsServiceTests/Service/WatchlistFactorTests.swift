@testable import AlertsService
@testable import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService
@testable import WatchlistService

/// SPEC § 2's queue score for exceptional-deal alerts: `dealScore × (1.2 if
/// the deal matches one of the user's watchlists) × (1 + preferred-airport
/// weight)`, who watches a route kept by alerts from the watchlist
/// service's events, never asked of it.
@Suite struct WatchlistFactorTests {
    static func deal(_ id: String, _ origin: String, _ destination: String, score: Int32, cabin: Cabin = .economy) -> Deal {
        var deal = Deal()
        deal.dealID = id
        deal.origin = origin
        deal.destination = destination
        deal.cabin = cabin
        deal.price = usd(65_000)
        deal.score.score = score
        deal.score.discountBasisPoints = 3_500
        return deal
    }

    static func delivery(_ deal: Deal, sequence: UInt64) -> Delivery<any BusEvent> {
        var event = ExceptionalDeal()
        event.deal = deal
        let metadata = EventMetadata(
            id: EventID(publisher: "scoring", sequence: sequence), topic: ExceptionalDeal.topic, typeName: "farelens.scoring.v1.ExceptionalDeal", traceID: .random())
        return Delivery<any BusEvent>(event: event, metadata: metadata)
    }

    static func scores(_ pending: [PendingEvent]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: pending.flatMap(\.candidates).map { ($0.userID, $0.queueScore) })
    }

    @Test("a deal ranks 1.2× higher for a user with an active watchlist on its route, by airport or by metro, in its cabin; another cabin, another route or a deleted watchlist does not count")
    func factorForWatchers() async throws {
        let fixture = try AlertsFixture()
        let byMetro = try await fixture.user("ann@example.com", airports: ["LHR"])
        let byAirport = try await fixture.user("bo@example.com", airports: ["LHR"])
        let otherCabin = try await fixture.user("cy@example.com", airports: ["LHR"])
        let otherRoute = try await fixture.user("di@example.com", airports: ["LHR"])
        let deleted = try await fixture.user("ed@example.com", airports: ["LHR"])
        let none = try await fixture.user("flo@example.com", airports: ["LHR"])
        try await fixture.watch(byMetro, "LON", "NRT")
        try await fixture.watch(byAirport, "LHR", "NRT")
        try await fixture.watch(byAirport, "LON", "NRT")
        try await fixture.watch(otherCabin, "LHR", "NRT", cabin: .business)
        try await fixture.watch(otherRoute, "LHR", "JFK")
        try await fixture.unwatch(deleted, try await fixture.watch(deleted, "LHR", "NRT"))

        let pending = try #require(await fixture.alerts.pendingEvents([Self.delivery(Self.deal("d-1", "LHR", "NRT", score: 90), sequence: 1)]))
        let scores = Self.scores(pending)
        #expect(scores.count == 6)
        for watcher in [byMetro, byAirport] {
            #expect(abs((scores[watcher] ?? 0) - 90 * 1.2 * 2) < 1e-9, "90 × 1.2 × (1 + 1)")
        }
        for other in [otherCabin, otherRoute, deleted, none] {
            #expect(abs((scores[other] ?? 0) - 90 * 2) < 1e-9, "90 × (1 + 1)")
        }
        // In business, only the business watchlist counts.
        let business = try #require(await fixture.alerts.pendingEvents([Self.delivery(Self.deal("d-2", "LHR", "NRT", score: 90, cabin: .business), sequence: 2)]))
        #expect(Self.scores(business).filter { $0.value > 90 * 2 + 1e-9 }.map(\.key) == [otherCabin])
    }

    @Test("the factor decides the last place under a Free user's cap: a watched route's lower deal score beats an unwatched higher one")
    func factorDecidesTheCap() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("gil@example.com", airports: ["LHR"])
        try await fixture.watch(user, "LHR", "JFK")
        // Two of Free's three immediate alerts used today.
        let earlier = await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", sequence: 1), fixture.crossing(user, "JFK", "SFO", sequence: 2)])
        #expect(earlier.map(\.decisionValue) == [.sent, .sent])
        // Unwatched 95 × 2 = 190 against watched 85 × 1.2 × 2 = 204; without the factor 170 would lose.
        let deals = [Self.delivery(Self.deal("d-unwatched", "LHR", "NRT", score: 95), sequence: 3), Self.delivery(Self.deal("d-watched", "LHR", "JFK", score: 85), sequence: 4)]
        let pending = try #require(await fixture.alerts.pendingEvents(deals))
        let rows = await fixture.alerts.decide(pending)
        let decisions = Dictionary(uniqueKeysWithValues: rows.map { ($0.dealID, $0.decisionValue) })
        #expect(decisions == ["d-watched": .sent, "d-unwatched": .capped])
    }

    @Test("deals are decided with the factor while neither watchlist nor subscription can be asked (issue #64's one-way graph: alerts keeps what it needs from their events); a deal from an origin nobody prefers (no airport code) is handled with no recipients")
    func decidedWithNoOneAsked() async throws {
        // The alerts service on a bus of its own where only search's directory answers: RouteWatchers,
        // PreferredAirportUsers and GetUsers are served by no one (asked, they would fail and the deal would wait).
        let alertsBus = MessageBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000))
        try fixture.directory.serve(on: alertsBus)
        let user = try await fixture.user("ida@example.com", tier: .pro, airports: ["JFK"])
        try await fixture.watch(user, "JFK", "NRT")
        let running = Task { try await fixture.alerts.run() }
        defer { running.cancel() }
        var nowhere = ExceptionalDeal()
        nowhere.deal = Self.deal("d-nowhere", "J1K", "NRT", score: 90)
        try await alertsBus.publish(nowhere)
        var event = ExceptionalDeal()
        event.deal = Self.deal("d-1", "JFK", "NRT", score: 90)
        try await alertsBus.publish(event)
        try await waitUntil("the deal decided without asking anyone") { ((try? fixture.rows(user)) ?? []).count == 1 }
        let row = try #require(try fixture.rows(user).first)
        #expect(row.dealID == "d-1" && row.decisionValue == .sent)
        #expect(abs(row.queueScore - 90 * 1.2 * 2) < 1e-9)
        // Both deals are in the inbox: the one from no airport is handled (no one to alert), not waited on.
        try await waitUntil("both deals handled") {
            let handled = try? await fixture.database.writer.read { db in try ServiceDatabase.appliedEventCount(consumer: AlertsService.dealConsumer, in: db) }
            return handled == 2
        }
        #expect(fixture.wire.sleeping == 0, "no retry waits: nothing was asked that failed")
    }
}
