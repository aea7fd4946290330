@testable import AlertsService
@testable import SubscriptionService
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// The trial-ending notice: subscription says a trial ends tomorrow, alerts tells the user once.
@Suite("Trial-ending notices")
struct TrialNoticeTests {
    static func notice() throws -> AlertCandidate {
        var event = TrialEnding()
        event.userID = "u1"
        event.stage = .oneDayLeft
        return try #require(AlertsService.candidate(for: event))
    }

    @Test("a notice is sent even when the day's cap is used, and uses none of it; a pause mutes it; quiet hours hold it for the digest")
    func policy() throws {
        let noon = AlertPolicyTests.local(2026, 6, 10, 12, 0)
        var state = RecipientState(day: QuietHoursWindow.localDay(noon, in: AlertPolicyTests.newYork))
        state.sentOnDay = 3
        let sent = AlertPolicy.decide([try Self.notice()], for: AlertPolicyTests.recipient(cap: 3), state: &state, at: noon)
        #expect(sent.map(\.decision) == [.sent] && state.sentOnDay == 3)
        #expect(sent[0].reason == "Sent: the trial ends tomorrow (a service notice: outside the daily cap)")
        state.pausedUntil = noon.addingTimeInterval(3_600)
        #expect(AlertPolicy.decide([try Self.notice()], for: AlertPolicyTests.recipient(), state: &state, at: noon).map(\.decision) == [.muted])
        #expect(AlertPolicyTests.decideFresh(try Self.notice(), at: AlertPolicyTests.local(2026, 6, 10, 23, 0)).decision == .held)
        var expired = TrialEnding()
        expired.stage = .expired
        #expect(AlertsService.candidate(for: expired) == nil, "the end itself is told by the tier change, not by an alert")
    }

    @Test("through the bus: subscription's one-day-left event becomes one sent notice with its wording, once; the user's three fare alerts that day are still all sent")
    func throughTheBus() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("tia@example.com", tier: .trial)
        let running = Task { try await fixture.alerts.run() }
        // Subscription's run loop publishes its events (and checks trials itself, so who moves the trial first varies).
        let publishing = Task { try await fixture.subscription.run() }
        defer {
            running.cancel()
            publishing.cancel()
        }
        // 13 days later, at noon in New York: one day of the trial left.
        fixture.clock.advance(by: 13 * 86_400)
        _ = await fixture.subscription.advanceTrials()
        try await waitUntil("the notice was decided") { (try? fixture.rows(user).contains { $0.kindValue == .trialEnding }) == true }
        #expect(await fixture.subscription.advanceTrials() == 0, "published once")
        let notices = try fixture.rows(user).filter { $0.kindValue == .trialEnding }
        #expect(notices.count == 1)
        #expect(notices.first?.decisionValue == .sent)
        #expect(notices.first?.title == "Your FareLens Pro trial ends tomorrow")
        #expect(notices.first?.body.hasPrefix("Then your account moves to Free") == true)
        // A trial has Pro's cap of 6; the notice takes none of it.
        let decided = await fixture.alerts.decide((1 ... 6).map { fixture.crossing(user, "JFK", ["NRT", "LAX", "SFO", "LHR", "CDG", "SYD"][$0 - 1], sequence: UInt64($0)) })
        #expect(decided.map(\.decisionValue) == Array(repeating: .sent, count: 6))
    }
}
