@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

/// Deciding alerts needs search's airport directory: metros make LHR→NRT
/// the route LON→NRT for mutes, and bring a deal from LCY to users who
/// prefer LON. While the directory cannot answer, the alerts service waits.
@Suite struct DirectoryAwayTests {
    @Test("while search's directory is away, decisions wait for it: then a route muted by its metro stays muted and a deal reaches users who prefer the origin's metro")
    func decisionsWaitForTheDirectory() async throws {
        // The alerts service on a bus of its own, where subscription answers whether a user exists (the mute asks)
        // and the directory is served only later; the users' settings alerts keeps from events.
        let alertsBus = MessageBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000))
        try alertsBus.serve(GetUserRequest.self) { request, _ in try await fixture.subscription.user(request) }
        let jo = try await fixture.user("jo@example.com", tier: .pro, airports: ["LON"])
        let kai = try await fixture.user("kai@example.com", tier: .pro, airports: ["SFO"])
        var mute = MuteRouteRequest()
        (mute.userID, mute.origin, mute.destination) = (kai, "LON", "NRT")
        _ = try await fixture.alerts.mute(mute)  // accepted with its codes unchecked: a mute never waits for the directory
        let running = Task { try await fixture.alerts.run() }
        defer { running.cancel() }
        try await alertsBus.publish(SubscriptionAwayTests.deal("d-1", origin: "LCY"))
        var crossing = ThresholdCrossed()
        (crossing.userID, crossing.watchlistID, crossing.origin, crossing.destination) = (kai, "w-1", "LHR", "NRT")
        crossing.priceThreshold = usd(70_000)
        crossing.check.lowestPrice = usd(65_000)
        crossing.check.belowThreshold = true
        try await alertsBus.publish(crossing)
        // Asked, failed, asked again one retry interval later and failed again: nothing recorded meanwhile.
        try await fixture.failTwice("the codes asked about while the directory is away")
        #expect(try fixture.rows(jo).isEmpty)
        #expect(try fixture.rows(kai).isEmpty)
        try fixture.directory.serve(on: alertsBus)
        try await fixture.retryUntil("both decided once the directory answers") {
            ((try? fixture.rows(jo)) ?? []).count == 1 && ((try? fixture.rows(kai)) ?? []).count == 1
        }
        #expect(try fixture.rows(jo).map(\.decisionValue) == [.sent], "LCY is in LON, which jo prefers")
        #expect(try fixture.rows(jo).first?.title.hasPrefix("Tokyo deal") == true, "the city name, not the code")
        #expect(try fixture.rows(kai).map(\.decisionValue) == [.muted], "LHR→NRT is LON→NRT, which kai muted")
    }
}
