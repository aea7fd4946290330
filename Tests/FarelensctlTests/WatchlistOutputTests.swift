import FareLensMessages
import Testing
@testable import farelensctl

/// What `watchlists list|show` says about a threshold in another currency than the route's prices.
@Suite("Watchlist output")
struct WatchlistOutputTests {
    @Test("a threshold in another currency is shown compared with the converted price; flagged only when the last check could not convert it")
    func currencyWarning() {
        let eur = Money(minorUnits: 45_000, currency: "EUR"), usd = Money(minorUnits: 41_000, currency: "USD")
        #expect(WatchlistOutput.currencyWarning(threshold: eur, price: usd)
            == "the threshold is in EUR but this route is priced in USD, and the last check could not convert the price (no exchange rate): it was not compared")
        #expect(WatchlistOutput.currencyWarning(threshold: usd, price: Money(minorUnits: 39_000, currency: "USD")) == nil)
        #expect(WatchlistOutput.currencyWarning(threshold: eur, price: nil) == nil)
        #expect(WatchlistOutput.currencyWarning(threshold: nil, price: usd) == nil)

        var watchlist = Watchlist()
        watchlist.priceThreshold = eur
        watchlist.lastCheck.lowestPrice = usd
        #expect(WatchlistOutput.Row(watchlist).thresholdWarning != nil && WatchlistOutput.Row(watchlist).comparedPrice == nil)
        watchlist.lastCheck.comparedPrice = Money(minorUnits: 37_434, currency: "EUR")
        watchlist.lastCheck.exchangeRate = "0.91299187"
        watchlist.lastCheck.exchangeRateDate = "2024-01-04"
        let row = WatchlistOutput.Row(watchlist)
        #expect(row.thresholdWarning == nil)
        #expect(row.comparedPrice == "≈ 374.34 EUR at 0.91299187 (ECB 2024-01-04)" || row.comparedPrice == "≈ €374.34 at 0.91299187 (ECB 2024-01-04)", "\(row.comparedPrice ?? "nil")")
    }
}
