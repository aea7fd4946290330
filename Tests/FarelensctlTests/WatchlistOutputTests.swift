import FareLensMessages
import Testing
@testable import farelensctl

/// What `watchlists list` says about a threshold it can never compare.
@Suite("Watchlist output")
struct WatchlistOutputTests {
    @Test("a threshold in another currency than the route's prices is flagged; the same currency, or no price yet, is not")
    func currencyWarning() {
        let eur = Money(minorUnits: 45_000, currency: "EUR"), usd = Money(minorUnits: 41_000, currency: "USD")
        #expect(WatchlistOutput.currencyWarning(threshold: eur, price: usd)
            == "the threshold is in EUR but this route is priced in USD: it is never compared (set one in USD with watchlists update --threshold)")
        #expect(WatchlistOutput.currencyWarning(threshold: usd, price: Money(minorUnits: 39_000, currency: "USD")) == nil)
        #expect(WatchlistOutput.currencyWarning(threshold: eur, price: nil) == nil)
        #expect(WatchlistOutput.currencyWarning(threshold: nil, price: usd) == nil)

        var watchlist = Watchlist()
        watchlist.priceThreshold = eur
        watchlist.lastCheck.lowestPrice = usd
        #expect(WatchlistOutput.Row(watchlist).thresholdWarning != nil)
    }
}
