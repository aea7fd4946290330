@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// Candidates that arrive together compete for the cap whatever their
/// topic: the decision stream is one queue for every input, and its batches
/// gather for the window (docs/alerts.md, "Which candidates compete").
@Suite struct CompetingTopicsTests {
    /// A 20% drop on `origin`→`destination` for `user`: queue score (60 + 20) × 1.2 = 96.
    static func drop(_ user: String, _ origin: String, _ destination: String) -> PriceChanged {
        var event = PriceChanged()
        event.checkID = "c-drop"
        event.userID = user
        event.watchlistID = "w-\(origin)\(destination)"
        event.origin = origin
        event.destination = destination
        event.previousPrice = usd(50_000)
        event.check.lowestPrice = usd(40_000)
        event.check.changeBasisPoints = -2_000
        return event
    }

    /// A crossing on `origin`→`destination` for `user`: queue score 120.
    static func crossing(_ user: String, _ origin: String, _ destination: String) -> ThresholdCrossed {
        var event = ThresholdCrossed()
        event.checkID = "c-crossing"
        event.userID = user
        event.watchlistID = "w-\(origin)\(destination)"
        event.origin = origin
        event.destination = destination
        event.priceThreshold = usd(70_000)
        event.check.lowestPrice = usd(65_000)
        event.check.belowThreshold = true
        return event
    }

    /// A Free user (cap 3) with two alerts sent today: the cap has room for one more.
    static func userWithOnePlaceLeft(_ fixture: AlertsFixture) async throws -> String {
        let user = try await fixture.user("one-left@example.com")
        let sent = await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", sequence: 1), fixture.crossing(user, "JFK", "SFO", sequence: 2)])
        try #require(sent.map(\.decisionValue) == [.sent, .sent])
        return user
    }

    @Test("a drop and then a crossing on another topic for the same Free user, both within the window, compete for the cap's last place: the crossing (120) wins over the drop (96) that came first")
    func crossingBeatsAnEarlierDrop() async throws {
        // The window is on the bus's clock, which only this test moves: the crossing arrives while the drop's
        // window stands open, and the batch closes when the test moves the clock past it. (On the machine's
        // clock this test slept 50 ms between the events inside a 5 s window, which had been 1.5 s until a
        // fresh-clone CI run on 2 cores saw the second event arrive after it closed.)
        let busTime = ManualWallClock()
        var configuration = BusConfiguration()
        configuration.clock = BusClock(following: busTime)
        let fixture = try AlertsFixture(bus: MessageBus(configuration: configuration), gathering: .seconds(5))
        let user = try await Self.userWithOnePlaceLeft(fixture)
        let task = Task { try await fixture.alerts.run() }
        defer { task.cancel() }
        try await fixture.bus.publish(Self.drop(user, "JFK", "LHR"))
        #expect(await busTime.waitUntilSleeping(1), "the drop's window waits on the bus's clock")
        try await fixture.bus.publish(Self.crossing(user, "JFK", "NRT"))
        busTime.advance(by: 5)
        try await waitUntil("both decided") { ((try? fixture.rows(user))?.count ?? 0) == 4 }
        let decided = try fixture.rows(user).suffix(2)
        #expect(decided.first { $0.destination == "NRT" }?.decisionValue == .sent)
        #expect(decided.first { $0.destination == "LHR" }?.decisionValue == .capped)
    }
}
