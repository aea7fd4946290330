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

    @Test("a flexible range reads as its length and dates, or as weekends; a range's check says which trip was cheapest of how many scanned and how many the range holds")
    func ranges() {
        var flexible = FlexibleDates()
        (flexible.minTripDays, flexible.maxTripDays) = (5, 9)
        #expect(WatchlistOutput.flexibleText(flexible) == "any 5–9 d")
        flexible.earliestDeparture = CalendarDate(year: 2027, month: 3, day: 1)!.message
        flexible.latestReturn = CalendarDate(year: 2027, month: 5, day: 31)!.message
        #expect(WatchlistOutput.flexibleText(flexible) == "any 5–9 d 2027-03-01..2027-05-31")
        (flexible.minTripDays, flexible.maxTripDays) = (0, 0)
        flexible.weekendsOnly = true
        #expect(WatchlistOutput.flexibleText(flexible) == "weekends 2027-03-01..2027-05-31")

        var watchlist = Watchlist()
        watchlist.dates.flexible = flexible
        watchlist.lastCheck.lowestPrice = Money(minorUnits: 41_000, currency: "USD")
        watchlist.lastCheck.departureDate = CalendarDate(year: 2027, month: 3, day: 5)!.message
        watchlist.lastCheck.returnDate = CalendarDate(year: 2027, month: 3, day: 7)!.message
        var priced = ScannedDatePair()
        priced.lowestPrice = watchlist.lastCheck.lowestPrice
        var none = ScannedDatePair()
        none.failure = "no-fares-available"
        watchlist.lastCheck.scannedPairs = [priced, none, priced]
        watchlist.lastCheck.rangePairs = 52
        let row = WatchlistOutput.Row(watchlist)
        #expect(row.scan == "cheapest 2027-03-05 → 2027-03-07 of 3 trips scanned (2 with fares; 52 in the range)")
        #expect(row.tripsScanned == 3 && row.tripsInRange == 52)
        #expect(WatchlistOutput.Row(Watchlist()).scan == nil)
    }
}

