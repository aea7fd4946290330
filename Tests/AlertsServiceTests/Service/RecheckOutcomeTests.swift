@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// What the re-check before the first attempt found travels on
/// `AlertDelivered` (the track record's confirmed count, issue #59).
@Suite("The re-check's outcome on AlertDelivered")
struct RecheckOutcomeTests {
    @Test("search unable to say → UNCONFIRMED; the fare found at or under the alerted price → CONFIRMED, and a retry carries its first re-check's outcome without searching again")
    func outcomeTravels() async throws {
        let fixture = try AlertsFixture()
        let delivered = fixture.bus.subscribe(AlertDelivered.self)
        // The delivery's events are published by its queue, as the service's run() does.
        let publishing = Task { await fixture.alerts.delivery.events.run() }
        defer { publishing.cancel() }
        let user = try await fixture.user("ida@example.com", tier: .pro)

        // No price for the route: search answers no-fares-available, the alert goes out as decided.
        let unknown = try #require(await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", cents: 65_000, sequence: 1)]).first)
        await fixture.alerts.delivery.deliverDue()

        // Found lower than alerted: confirmed. The first attempt is retried.
        let held = try #require(await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", cents: 30_000, sequence: 2)]).first)
        fixture.directory.prices.set(["JFK-LAX": 29_900])
        fixture.channel.script.set([.retry(reason: "HTTP 503", retryAfter: nil)])
        await fixture.alerts.delivery.deliverDue()
        let searches = fixture.directory.searches.get()
        #expect(try fixture.rows(user).first { $0.alertID == held.alertID }?.recheckValue == .confirmed)
        // The fare rises meanwhile: an alert already attempted is never judged again.
        fixture.directory.prices.set(["JFK-LAX": 99_000])
        fixture.clock.advance(by: 10)
        await fixture.alerts.delivery.deliverDue()
        let events = try await firstEvents(2, of: delivered)
        #expect(events[0].alertID == unknown.alertID && events[0].recheck == .unconfirmed)
        #expect(events[1].alertID == held.alertID && events[1].attempts == 2 && events[1].recheck == .confirmed)
        #expect(fixture.directory.searches.get() == searches)
    }
}
