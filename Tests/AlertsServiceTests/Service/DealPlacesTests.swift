@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Testing

/// An exceptional deal carries what alerts needs to word and group it: each
/// end's city and metro, from search's directory through `FareObserved` and
/// scoring's `Deal` (issue #64's one-way graph). Alerts asks search's
/// directory only for a deal from before they were carried.
@Suite struct DealPlacesTests {
    @Test("a deal carrying its places is decided and worded with its own city while search's directory is away, and its metro groups the route; one carrying none still waits for the directory")
    func decidedWithItsOwnPlaces() async throws {
        // The alerts service on a bus of its own where nobody answers AirportLookup: asked, the deal would wait.
        let alertsBus = MessageBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000))
        let user = try await fixture.user("kai@example.com", tier: .pro, airports: ["JFK"])
        let running = Task { try await fixture.alerts.run() }
        defer { running.cancel() }
        // HND is in no test directory: only the event names its city and metro.
        var event = ExceptionalDeal()
        event.deal = WatchlistFactorTests.deal("d-hnd", "JFK", "HND", score: 90)
        (event.deal.originCity, event.deal.originMetro) = ("New York", "NYC")
        (event.deal.destinationCity, event.deal.destinationMetro) = ("Tokyo", "TYO")
        try await alertsBus.publish(event)
        try await waitUntil("the deal decided without asking the directory") { ((try? fixture.rows(user)) ?? []).count == 1 }
        let row = try #require(try fixture.rows(user).first)
        #expect(row.dealID == "d-hnd" && row.decisionValue == .sent)
        #expect(row.title == "Tokyo deal dropped to $650", "\(row.title)")
        #expect(await fixture.alerts.metro(of: "HND") == "TYO")
        #expect(fixture.wire.sleeping == 0, "no retry waits: nothing was asked")

        // A deal from before the places were carried names none: its new code is asked of the directory, which is away.
        var old = ExceptionalDeal()
        old.deal = WatchlistFactorTests.deal("d-old", "JFK", "KIX", score: 90)
        try await alertsBus.publish(old)
        #expect(await fixture.wire.waitUntilSleeping(1), "the old deal waits for search's directory")
        #expect(try fixture.rows(user).count == 1)
    }

    @Test("a watchlist crossing carrying its places is decided and worded with its own city while search's directory is away")
    func crossingWithItsOwnPlaces() async throws {
        let alertsBus = MessageBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000))
        let user = try await fixture.user("lea@example.com", tier: .pro, airports: ["JFK"])
        let running = Task { try await fixture.alerts.run() }
        defer { running.cancel() }
        var crossing = fixture.crossingEvent(user, "JFK", "HND")
        (crossing.originCity, crossing.originMetro) = ("New York", "NYC")
        (crossing.destinationCity, crossing.destinationMetro) = ("Tokyo", "TYO")
        try await alertsBus.publish(crossing)
        try await waitUntil("the crossing decided without asking the directory") { ((try? fixture.rows(user)) ?? []).count == 1 }
        let row = try #require(try fixture.rows(user).first)
        #expect(row.decisionValue == .sent)
        #expect(row.title.hasPrefix("Tokyo"), "\(row.title)")
        #expect(await fixture.alerts.metro(of: "HND") == "TYO")
        #expect(fixture.wire.sleeping == 0, "no retry waits: nothing was asked")
    }
}
