@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import SubscriptionService

/// Deciding alerts asks subscription nothing: the users' settings and who
/// prefers an airport alerts keeps from its events (`WatchlistFactorTests.decidedWithNoOneAsked`).
/// Its requests still ask whether a user exists (a pause, a mute): while
/// subscription cannot answer they are refused with a code of their own.
@Suite struct SubscriptionAwayTests {
    /// An exceptional deal of score 92 from `origin` to NRT (other suites' too).
    static func deal(_ id: String, origin: String) -> ExceptionalDeal {
        var event = ExceptionalDeal()
        event.deal.dealID = id
        event.deal.origin = origin
        event.deal.destination = "NRT"
        event.deal.price = usd(65_000)
        event.deal.score.score = 92
        event.deal.score.discountBasisPoints = 3_500
        return event
    }

    @Test("subscription's refusals are told from its failures: an invalid field is the answer, being away or its storage failing is waited out")
    func refusals() {
        #expect(AlertsService.isRefusal(.remote(code: "invalid-field", message: "airport: 'J1K' is not a three-letter IATA code")))
        #expect(AlertsService.isRefusal(.badMessage("no handler")))
        #expect(!AlertsService.isRefusal(.remote(code: "storage", message: "disk I/O error")))
        #expect(!AlertsService.isRefusal(.serviceUnavailable("subscription")))
        #expect(!AlertsService.isRefusal(.overloaded("subscription", limit: 64)))
    }

    @Test("a pause asked while subscription is away is refused subscription-unavailable, keeping the bus's service-unavailable as its cause (issue #64)")
    func pauseRefusedWithItsCause() async throws {
        // The alerts service alone on a bus of its own: nobody answers GetUser there.
        let fixture = try AlertsFixture(alertsBus: MessageBus())
        var pause = PauseAlertsRequest()
        pause.userID = "u-away"
        pause.hours = 24
        let error = await #expect(throws: AlertsError.self) { try await fixture.alerts.pause(pause) }
        #expect(error?.code == "subscription-unavailable", "\(String(describing: error))")
        let cause = try #require(error?.underlying as? BusError, "the cause, not its text: \(String(describing: error?.underlying))")
        #expect(cause.kind == .serviceUnavailable)
    }
}
