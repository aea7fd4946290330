import FareLensMessages
import Foundation
import Testing
@testable import FareLensGateway

/// Prices "≈ in the traveller's currency" (issue #60).
@Suite("Gateway: the traveller's currency")
struct GatewayCurrencyTests {
    static func item(_ minor: Int64, _ currency: String) -> FeedItem {
        var item = FeedItem()
        item.deal.price.minorUnits = minor
        item.deal.price.currency = currency
        return item
    }

    @Test("a feed page gets each deal's price in the chosen currency at the ECB rate, half to even; a deal already in it, or in a currency the rates lack, gets none; the fare itself is unchanged")
    func approximate() throws {
        // The ECB's reference rates of 2024-01-04.
        let rates = try ExchangeRateTable(
            date: CalendarDate(year: 2024, month: 1, day: 4)!, perEuro: ["USD": Decimal(string: "1.0953")!, "JPY": Decimal(string: "157.91")!], source: "test")
        var page = DealFeedResponse()
        page.items = [Self.item(10_000, "USD"), Self.item(4_200, "EUR"), Self.item(10_000, "JPY"), Self.item(5_000, "KWD")]
        page.approximate(in: "EUR", with: rates)
        #expect(page.items[0].approximatePrice == Money(minorUnits: 9_130, currency: "EUR") && page.items[0].approximateRateDate == "2024-01-04")
        #expect(!page.items[1].hasApproximatePrice, "already in EUR")
        #expect(page.items[2].approximatePrice == Money(minorUnits: 6_333, currency: "EUR"))
        #expect(!page.items[3].hasApproximatePrice, "KWD has no ECB rate")
        #expect(page.items[0].deal.price == Money(minorUnits: 10_000, currency: "USD"))
    }

    @Test("PATCH /v1/me sets the currency (and refuses one that is not ISO 4217, naming the field); the feed still answers", arguments: GatewayShape.allCases)
    func setting(shape: GatewayShape) async throws {
        try await GatewayHarness.with(shape) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let set = try await api.send(.PATCH, "/v1/me", token: token, json: #"{"currency":"gbp"}"#)
            #expect(set.status == 200 && (set.json["user"] as? [String: Any])?["currency"] as? String == "GBP", "\(set.text)")
            let bad = try await api.send(.PATCH, "/v1/me", token: token, json: #"{"currency":"pounds"}"#)
            #expect(bad.status == 422 && bad.code == "invalid-field" && bad.string("field") == "currency", "\(bad.text)")
            let feed = try await api.send(.GET, "/v1/me/deals?limit=5", token: token)
            #expect(feed.status == 200, "\(feed.text)")
            for item in feed.json["items"] as? [[String: Any]] ?? [] {
                let price = (item["deal"] as? [String: Any])?["price"] as? [String: Any]
                if price?["currency"] as? String != "GBP" {
                    #expect((item["approximate_price"] as? [String: Any])?["currency"] as? String == "GBP", "\(item)")
                }
            }
        }
    }

    @Test("a search's offers carry ≈ in the chosen currency at the rates' date; a new currency shows in the next answer (PATCH forgets the kept one)", arguments: GatewayShape.allCases)
    func searchApproximated(shape: GatewayShape) async throws {
        try await GatewayHarness.with(shape) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let day = CalendarDate.of(Date(), in: .gmt).adding(days: 40)
            let body = #"{"origin":"JFK","destination":"LAX","departure_date":{"year":\#(day.year),"month":\#(day.month),"day":\#(day.day)},"adults":1}"#
            #expect(try await api.send(.PATCH, "/v1/me", token: token, json: #"{"currency":"EUR"}"#).status == 200)
            let euro = try await api.send(.POST, "/v1/search", token: token, json: body)
            let offers = euro.json["offers"] as? [[String: Any]] ?? []
            #expect(euro.status == 200 && !offers.isEmpty, "\(euro.text)")
            for offer in offers where (offer["price"] as? [String: Any])?["currency"] as? String != "EUR" {
                #expect((offer["approximate_price"] as? [String: Any])?["currency"] as? String == "EUR", "\(offer)")
                #expect(offer["approximate_rate_date"] as? String == "2024-01-04", "the shipped snapshot's day: \(offer)")
            }
            #expect(offers.contains { $0["approximate_price"] != nil }, "JFK's fares are in dollars")
            let offerCurrencies = Set(offers.compactMap { ($0["price"] as? [String: Any])?["currency"] as? String })
            let own = try #require(offerCurrencies.first)
            #expect(try await api.send(.PATCH, "/v1/me", token: token, json: #"{"currency":"\#(own)"}"#).status == 200)
            let plain = try await api.send(.POST, "/v1/search", token: token, json: body)
            #expect(plain.status == 200)
            let same = (plain.json["offers"] as? [[String: Any]] ?? []).filter { ($0["price"] as? [String: Any])?["currency"] as? String == own }
            #expect(!same.isEmpty && same.allSatisfy { $0["approximate_price"] == nil }, "no ≈ for a fare already in the chosen currency")
        }
    }
}
