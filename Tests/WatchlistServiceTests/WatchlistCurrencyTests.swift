import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import WatchlistService

/// Thresholds in the traveller's currency (issue #60): each fare is
/// converted into the threshold's currency at the day's rate before it is
/// compared, and the check keeps the converted price and the rate.
@Suite("Watchlists: thresholds in another currency")
struct WatchlistCurrencyTests {
    final class Holder: Sendable {
        let fixture = Locked<WatchlistFixture?>(nil)
    }

    @Test("a EUR threshold on a USD market: $100.00 (91.30 EUR at the ECB's 1.0953) stays above 90.00 EUR, $98.00 (89.47 EUR) crosses it once, and each check shows the converted price and the rate", arguments: MeshShape.allCases)
    func eurThresholdOnUSDMarket(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            holder.fixture.set(try WatchlistFixture(bus: server, watchlistBus: client))
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let crossings = mesh.clientBus.subscribe(ThresholdCrossed.self)
            try await fixture.running {
                fixture.search.pricingCurrencies.set(["JFK": "USD"])
                let user = try await fixture.user()
                let id = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = Money(minorUnits: 9_000, currency: "EUR") }).watchlist.watchlistID
                var check = CheckWatchlistNowRequest()
                check.userID = user
                check.watchlistID = id

                fixture.search.setPrice("JFK-NRT", 10_000)
                let above = try await fixture.watchlists.checkNow(check)
                #expect(!above.thresholdCrossed)
                let first = above.watchlist.lastCheck
                #expect(first.lowestPrice == Money(minorUnits: 10_000, currency: "USD"))
                #expect(first.comparedPrice == Money(minorUnits: 9_130, currency: "EUR") && !first.belowThreshold)
                #expect(first.exchangeRateDate == "2024-01-04" && first.exchangeRate == "0.91299187", "\(first.exchangeRate)")

                fixture.search.setPrice("JFK-NRT", 9_800)
                let below = try await fixture.watchlists.checkNow(check)
                #expect(below.thresholdCrossed && below.watchlist.lastCheck.comparedPrice == Money(minorUnits: 8_947, currency: "EUR"))
                let crossing = try #require(try await firstEvents(1, of: crossings).first, "a ThresholdCrossed was published")
                #expect(crossing.watchlistID == id && crossing.priceThreshold.currency == "EUR" && crossing.check.comparedPrice.minorUnits == 8_947)
                #expect(try await !fixture.watchlists.checkNow(check).thresholdCrossed, "still below: no second alert")
            }
        }
    }

    @Test("when no rate can be had the check is still recorded, without a comparison: the threshold neither crosses nor re-arms")
    func noRate() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            fixture.search.pricingCurrencies.set(["JFK": "USD"])
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user) { $0.priceThreshold = Money(minorUnits: 9_000, currency: "EUR") }).watchlist.watchlistID
            var check = CheckWatchlistNowRequest()
            check.userID = user
            check.watchlistID = id
            fixture.search.ratesAway.set(true)
            fixture.search.setPrice("JFK-NRT", 100)
            let answer = try await fixture.watchlists.checkNow(check)
            #expect(!answer.thresholdCrossed && answer.watchlist.lastCheck.lowestPrice.minorUnits == 100)
            #expect(!answer.watchlist.lastCheck.hasComparedPrice && answer.watchlist.lastCheck.exchangeRate.isEmpty)
            fixture.search.ratesAway.set(false)
            #expect(try await fixture.watchlists.checkNow(check).thresholdCrossed, "with the rate back, the same price crosses")
        }
    }
}
