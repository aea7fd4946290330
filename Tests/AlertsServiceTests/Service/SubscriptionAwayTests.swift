@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import SubscriptionService

/// Deciding alerts needs subscription (each user's settings; who prefers an
/// airport alerts keeps from its events). While it cannot answer, the
/// alerts service waits; an event is never skipped because subscription was away.
@Suite struct SubscriptionAwayTests {
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

    @Test("exceptional deals published while subscription is away wait for it (the users' settings) and are decided when it answers; a deal from an origin nobody prefers (no airport code) is handled with no recipients")
    func dealsWaitForSubscription() async throws {
        // The alerts service on a bus of its own, where subscription is served only later.
        let alertsBus = MessageBus()
        let fixture = try AlertsFixture(alertsBus: alertsBus, wireStart: Date(timeIntervalSince1970: 1_800_000_000))
        try fixture.directory.serve(on: alertsBus)
        let user = try await fixture.user("jo@example.com", tier: .pro, airports: ["JFK"])
        let running = Task { try await fixture.alerts.run() }
        defer { running.cancel() }
        try await alertsBus.publish(Self.deal("d-refused", origin: "J1K"))
        try await alertsBus.publish(Self.deal("d-1", origin: "JFK"))
        // Asked, failed, asked again one retry interval later and failed again: nothing recorded meanwhile.
        try await fixture.failTwice("the deals asked about while subscription is away")
        #expect(try fixture.rows(user).isEmpty)
        try alertsBus.serve(GetUsersRequest.self) { request, _ in try await fixture.subscription.users(request) }
        try await fixture.retryUntil("the deal decided once subscription answers") { ((try? fixture.rows(user)) ?? []).count == 1 }
        let rows = try fixture.rows(user)
        #expect(rows.map(\.dealID) == ["d-1"])
        #expect(rows.first?.decisionValue == .sent)
        // Both deals are in the inbox: the one from no airport is handled (no one to alert), not asked about for ever.
        let handled = try await fixture.database.writer.read { db in
            try ServiceDatabase.appliedEventCount(consumer: AlertsService.dealConsumer, in: db)
        }
        #expect(handled == 2)
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
