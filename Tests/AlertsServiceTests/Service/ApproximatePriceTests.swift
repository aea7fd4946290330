@testable import AlertsService
import FareLensMessages
import FareLensStore
import Foundation
import Testing

/// "≈ in the traveller's currency" in the alerts (issue #60): an
/// exceptional deal's or a price drop's fare keeps its own currency and, for
/// a user who chose another, says it also in theirs at the ECB rate, with
/// the rate's day. A threshold alert already says its price in the
/// threshold's currency; a user with no currency of their own sees no "≈".
@Suite("Alerts: prices also in the recipient's currency")
struct ApproximatePriceTests {
    static let rates = try! ExchangeRateTable(  // safe: fixed, valid literals (the ECB's 2024-01-04 rates)
        date: CalendarDate(year: 2024, month: 1, day: 4)!, perEuro: ["USD": Decimal(string: "1.0953")!], source: "test")

    @Test("a USD deal for a EUR reader: ≈ €593.44 (650.00 ÷ 1.0953, half to even) in the body; a threshold alert, the same currency or one the rates lack: none")
    func approximated() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        var deal = AlertCandidate(userID: "u1", kind: .exceptionalDeal, origin: "JFK", destination: "NRT", price: Money(minorUnits: 65_000, currency: "USD"), queueScore: 1)
        deal.discountBasisPoints = 3_500
        deal.expiresAt = now.addingTimeInterval(6 * 3_600 + 600)
        AlertsService.approximate(&deal, in: "EUR", with: Self.rates)
        #expect(deal.approximatePrice == Money(minorUnits: 59_344, currency: "EUR") && deal.approximateRateDate == "2024-01-04")
        #expect(AlertWording.content(for: deal, city: "Tokyo", at: now).body == "Save 35% vs average. ≈ €593.44 at the ECB rate of 2024-01-04. Expires in 6 hours.")
        #expect(AlertWording.content(for: deal, city: "Tokyo", at: now).title == "Tokyo deal dropped to $650", "the fare itself is unchanged")

        var drop = AlertCandidate(userID: "u1", kind: .priceDrop, origin: "JFK", destination: "NRT", price: Money(minorUnits: 45_000, currency: "USD"), queueScore: 1)
        drop.discountBasisPoints = 1_200
        AlertsService.approximate(&drop, in: "EUR", with: Self.rates)
        #expect(AlertWording.content(for: drop, city: "Tokyo", at: now).body == "Down 12% since the last check. ≈ €410.85 at the ECB rate of 2024-01-04.")

        var crossing = AlertCandidate(userID: "u1", kind: .thresholdCrossed, origin: "JFK", destination: "NRT", price: Money(minorUnits: 45_000, currency: "USD"), queueScore: 1)
        AlertsService.approximate(&crossing, in: "EUR", with: Self.rates)
        #expect(crossing.approximatePrice == nil)
        var same = drop
        same.approximatePrice = nil
        AlertsService.approximate(&same, in: "USD", with: Self.rates)
        AlertsService.approximate(&same, in: "KWD", with: Self.rates)
        #expect(same.approximatePrice == nil)
    }

    @Test("deciding a deal: the user who chose EUR reads ≈ €593.44, the one who chose none reads the fare alone; the rates are asked once for the batch")
    func decided() async throws {
        let fixture = try AlertsFixture()
        let euro = try await fixture.user("eva@example.com", airports: ["JFK"])
        let plain = try await fixture.user("pam@example.com", airports: ["JFK"])
        var update = UpdateUserRequest()
        update.userID = euro
        update.currency = "EUR"
        _ = try await fixture.bus.request(update)
        await fixture.keepPreferences(of: euro)
        var deal = Deal()
        deal.dealID = "d-1"
        deal.origin = "JFK"
        deal.destination = "NRT"
        deal.price = Money(minorUnits: 65_000, currency: "USD")
        deal.score.score = 92
        deal.score.discountBasisPoints = 3_500
        let users = try await fixture.alerts.audience.preferring("JFK", orMetro: nil)
        let candidates = users.map { AlertsService.candidate(for: deal, user: $0, watchesRoute: false) }
        let rows = await fixture.alerts.decide([PendingEvent(key: InboxKey(publisher: "scoring", sequence: 1), consumer: AlertsService.dealConsumer, candidates: candidates)])
        let byUser = Dictionary(uniqueKeysWithValues: rows.map { ($0.userID, $0) })
        #expect(byUser[euro]?.body == "Save 35% vs average. ≈ €593.44 at the ECB rate of 2024-01-04.", "\(byUser[euro]?.body ?? "")")
        #expect(byUser[plain]?.body == "Save 35% vs average.")
        #expect(fixture.directory.rateRequests.get() == 1)
    }
}
