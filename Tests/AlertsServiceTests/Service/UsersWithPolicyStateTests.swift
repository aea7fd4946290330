@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Testing

/// The in-memory set of users whose policy state a batch reads from the
/// database (`UsersWithPolicyState`): every way of gaining state after it
/// is loaded is seen by the next batch, so skipping the others' query never
/// forgets a mute, a pause or a sent alert.
@Suite struct UsersWithPolicyStateTests {
    @Test("once the set is loaded, a mute, a pause and a sent alert given afterwards are each seen by the next batch")
    func stateGainedAfterTheLoad() async throws {
        let fixture = try AlertsFixture()
        let loader = try await fixture.user("loader@example.com")
        let muted = try await fixture.user("muted@example.com")
        let paused = try await fixture.user("paused@example.com")
        let sent = try await fixture.user("sent@example.com")
        // The first batch loads the set; none of the three has state yet.
        #expect(await fixture.alerts.decide([fixture.crossing(loader, sequence: 1)]).map(\.decisionValue) == [.sent])
        #expect(fixture.alerts.usersWithState.isLoaded)

        var mute = MuteRouteRequest()
        mute.userID = muted
        mute.origin = "JFK"
        mute.destination = "NRT"
        _ = try await fixture.bus.request(mute)
        var pause = PauseAlertsRequest()
        pause.userID = paused
        _ = try await fixture.bus.request(pause)
        #expect(await fixture.alerts.decide([fixture.crossing(sent, "JFK", "LAX", sequence: 2)]).map(\.decisionValue) == [.sent])

        let next = await fixture.alerts.decide([
            fixture.crossing(muted, sequence: 3), fixture.crossing(paused, sequence: 4), fixture.crossing(sent, "JFK", "LAX", cents: 60_000, sequence: 5),
        ])
        let decisions = Dictionary(uniqueKeysWithValues: next.map { ($0.userID, $0.decisionValue) })
        #expect(decisions == [muted: .muted, paused: .muted, sent: .deduped])
    }

    @Test("a batch that looks back further than the load (the clock set back) loads the set again and finds what is older")
    func clockSetBack() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("back@example.com")
        let other = try await fixture.user("other@example.com")
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]).map(\.decisionValue) == [.sent])
        // Forgotten, then loaded three days on: the sent alert is older than that load's look-back.
        fixture.alerts.usersWithState.forget()
        fixture.clock.advance(by: 3 * 86_400)
        #expect(await fixture.alerts.decide([fixture.crossing(other, sequence: 2)]).map(\.decisionValue) == [.sent])
        // Back to an hour after the first alert: the same route is within 12 hours of it.
        fixture.clock.advance(by: -3 * 86_400 + 3_600)
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 3)]).map(\.decisionValue) == [.deduped])
    }

    @Test("retention forgets the set; the next batch loads it again, still finding today's sent alerts")
    func retentionForgets() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("kept@example.com")
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 1)]).map(\.decisionValue) == [.sent])
        #expect(fixture.alerts.usersWithState.isLoaded)
        _ = await fixture.alerts.applyRetention(now: fixture.clock.now())
        #expect(!fixture.alerts.usersWithState.isLoaded)
        #expect(await fixture.alerts.decide([fixture.crossing(user, sequence: 2)]).map(\.decisionValue) == [.deduped])
        #expect(fixture.alerts.usersWithState.isLoaded)
    }
}
