import FareLensMessages
import FareLensServiceKit
import Foundation
import GRDB
import Testing
@testable import ScoringService
@testable import SearchService

/// The buy-or-wait forecast's backtest (issue #59): the hit rates a hand
/// count gives, on a hand-made history and on histories from the simulated
/// market with a fixed seed; a forecast that does not beat "always rise"
/// is withheld.
@Suite("Buy or wait: the backtest and withholding")
struct ForecastBacktestTests {
    /// A curve with the same premium at every lead time: the booking-window
    /// signal is 0, so only the reversion signal (by hand: half the way back
    /// to the two-week median) moves a forecast.
    static let flatCurve = BookingWindowCurve(windows: [(from: 0, to: 400, premium: 10)])
    static let firstDay = CalendarDate(year: 2026, month: 1, day: 1)!.daysSinceEpoch
    static let route = RouteCabin(origin: "LIS", destination: "LON", cabin: Cabin.economy.rawValue)

    /// Days 0–40 at 10,000 but for dips to 8,000 on days 15, 22 and 29, a
    /// spike to 12,000 on day 18 and 10,800 on day 25: the trailing median
    /// stays 10,000 throughout.
    static func handMadeSeries(leaving out: Set<Int> = []) -> [DailyMinimum] {
        let special: [Int: Int64] = [15: 8_000, 18: 12_000, 22: 8_000, 25: 10_800, 29: 8_000]
        return (0 ... 40).filter { !out.contains($0) }.map { DailyMinimum(day: firstDay + $0, minimum: special[$0] ?? 10_000, observations: 1) }
    }

    @Test("a hand-made history: each forecast and the backtest's counts are the ones a hand count gives")
    func handCount() throws {
        let model = ForecastModel(curve: Self.flatCurve)
        let series = Self.handMadeSeries()
        // Day 15: 8,000 against a median of 10,000 → +12.5% expected: rise, high.
        let dip = try #require(model.forecast(series, at: 15, departureMonth: 202612))
        #expect(dip.outlook == .likelyToRise && dip.confidence == .high)
        #expect(abs(dip.expectedChange - 0.125) < 1e-9 && dip.bookingWindowChange == 0 && dip.trailingMedian == 10_000)
        // Day 25: 10,800 → 0.5 × (10,000 / 10,800 − 1) = −3.7%: fall, medium.
        let rise = try #require(model.forecast(series, at: 25, departureMonth: 202612))
        #expect(rise.outlook == .likelyToFall && rise.confidence == .medium)
        // Day 7 has seven days before it (the least); day 6 six: no forecast.
        #expect(model.forecast(series, at: 6, departureMonth: 202612) == nil)
        #expect(model.forecast(series, at: 7, departureMonth: 202612)?.outlook == .noClearSignal)

        var backtest = ForecastBacktest(model: model, firstDay: Self.firstDay, lastDay: Self.firstDay + 40)
        backtest.add(series, route: Self.route, departureMonth: 202612)
        // By hand (the fare a week later): day 15 rise → day 22 8,000 held, miss;
        // 18 fall → 25 10,800 fell, hit; 22 rise → 29 8,000 held, miss;
        // 25 fall → 32 10,000 fell, hit; 29 rise → 36 10,000 rose, hit and
        // the baseline's only hit. Days 7–33 but those five: no signal.
        #expect(backtest.overall == ForecastTally(forecasts: 5, hits: 3, baselineHits: 1))
        #expect(backtest.byConfidence[.high] == ForecastTally(forecasts: 4, hits: 2, baselineHits: 1))
        #expect(backtest.byConfidence[.medium] == ForecastTally(forecasts: 1, hits: 1, baselineHits: 0))
        #expect(backtest.byRoute == [Self.route: ForecastTally(forecasts: 5, hits: 3, baselineHits: 1)])
        #expect(backtest.noSignal == 22 && backtest.unscorable == 0)
        #expect(backtest.overall.hitRate == 0.6 && backtest.overall.baselineHitRate == 0.2)

        // Without day 32, day 25's forecast has no outcome: unscorable, not a miss.
        var gap = ForecastBacktest(model: model, firstDay: Self.firstDay, lastDay: Self.firstDay + 40)
        gap.add(Self.handMadeSeries(leaving: [32]), route: Self.route, departureMonth: 202612)
        #expect(gap.overall == ForecastTally(forecasts: 4, hits: 2, baselineHits: 1))
        #expect(gap.unscorable == 1 && gap.noSignal == 21)
    }

    @Test("a forecast whose measured hit rate does not beat always saying 'rise' is withheld as 'no clear signal', and says so")
    func withheldWhenNoBetterThanTheBaseline() throws {
        let model = ForecastModel(curve: Self.flatCurve)
        // Up 2% a day for 60 days: every day is above its two-week median, so
        // the model says "fall", and every week the fare rose.
        let climbing = RouteCabin(origin: "LIS", destination: "NYC", cabin: Cabin.economy.rawValue)
        let series = (0 ..< 60).map { DailyMinimum(day: Self.firstDay + $0, minimum: Int64(10_000 * pow(1.02, Double($0))), observations: 1) }
        var backtest = ForecastBacktest(model: model, firstDay: Self.firstDay, lastDay: Self.firstDay + 59)
        backtest.add(series, route: climbing, departureMonth: 202612)
        backtest.add(Self.handMadeSeries(), route: Self.route, departureMonth: 202612)
        let own = try #require(backtest.byRoute[climbing])
        #expect(own.forecasts == 46 && own.hits == 0 && own.baselineHits == 46)

        let today = try #require(model.forecast(series, at: 59, departureMonth: 202612))
        #expect(today.outlook == .likelyToFall)
        let published = PublishedForecast(today, route: climbing, backtest: backtest)
        #expect(published.withheld && published.outlook == .noClearSignal && published.accuracyIsRoutes)
        #expect(published.reasons.last?.contains("right 0 of 46 times (0%)") == true)
        #expect(published.reasons.last?.contains("withheld") == true)

        // The hand-made route has 5 scored forecasts (< 20): it is judged by
        // the overall figures, 3 of 51 against 47 of 51, and withheld too.
        let dip = try #require(model.forecast(Self.handMadeSeries(), at: 15, departureMonth: 202612))
        let judgedOverall = PublishedForecast(dip, route: Self.route, backtest: backtest)
        #expect(!judgedOverall.accuracyIsRoutes && judgedOverall.withheld && judgedOverall.accuracy == ForecastTally(forecasts: 51, hits: 3, baselineHits: 47))

        // Alone, the hand-made route's 3 of 5 beats 1 of 5: shown.
        var alone = ForecastBacktest(model: model, firstDay: Self.firstDay, lastDay: Self.firstDay + 40)
        alone.add(Self.handMadeSeries(), route: Self.route, departureMonth: 202612)
        let shown = PublishedForecast(dip, route: Self.route, backtest: alone)
        #expect(!shown.withheld && shown.outlook == .likelyToRise)

        // Nothing scored yet: a rise is not shown.
        let empty = ForecastBacktest(model: model, firstDay: Self.firstDay, lastDay: Self.firstDay + 40)
        let unscored = PublishedForecast(dip, route: Self.route, backtest: empty)
        #expect(unscored.withheld && unscored.outlook == .noClearSignal)
    }

    @Test("on histories from the simulated market (seed 7): the backtest's counts equal an independent count of the same forecasts, and the model beats always saying 'rise'")
    func simulatedMarketHistories() throws {
        let histories = try SimulatedHistories(seed: 7)
        var backtest = ForecastBacktest(model: histories.model, firstDay: histories.firstDay, lastDay: histories.lastDay)
        var counted = ForecastTally(), countedNoSignal = 0, countedUnscorable = 0
        for history in histories.series {
            backtest.add(history.days, route: history.route, departureMonth: history.month)
            let byDay = Dictionary(uniqueKeysWithValues: history.days.map { ($0.day, $0.minimum) })
            for index in history.days.indices where history.days[index].day + ForecastModel.horizonDays <= histories.lastDay {
                guard let forecast = histories.model.forecast(history.days, at: index, departureMonth: history.month) else { continue }
                guard forecast.outlook != .noClearSignal else {
                    countedNoSignal += 1
                    continue
                }
                // A month's series ends with its last departure: no fare a week later.
                guard let later = byDay[history.days[index].day + ForecastModel.horizonDays] else {
                    countedUnscorable += 1
                    continue
                }
                counted.add(forecast.outlook, FareMove(from: history.days[index].minimum, to: later))
            }
        }
        #expect(backtest.overall == counted && backtest.noSignal == countedNoSignal && backtest.unscorable == countedUnscorable)
        #expect(backtest.overall.forecasts > 500)
        let rate = try #require(backtest.overall.hitRate), baseline = try #require(backtest.overall.baselineHitRate)
        print("ForecastBacktestTests: simulated market, \(histories.series.count) series: \(backtest.overall.hits) of \(backtest.overall.forecasts) right (\(rate)), always-rise \(baseline); no signal \(backtest.noSignal), unscorable \(backtest.unscorable)")
        #expect(backtest.overall.beatsBaseline)
    }

    @Test("the backtest read from the daily_minimum table in one pass gives what it gives from the same series in memory, two currencies of one route kept apart")
    func fromTheDatabase() throws {
        let histories = try SimulatedHistories(seed: 11)
        let queue = try DatabaseQueue()
        try queue.write { db in
            try DailyMinimumRecord.migrate(db)
            try DailyMinimumRecord.migrateSimulated(db)
            for (offset, history) in histories.series.enumerated() {
                for day in history.days {
                    // The first series also in a second currency, 1.1× the price.
                    for (currency, factor) in offset == 0 ? [("EUR", 1.0), ("GBP", 1.1)] : [("EUR", 1.0)] {
                        try DailyMinimumRecord.fold(
                            origin: history.route.origin, destination: history.route.destination, cabin: history.route.cabin,
                            departureMonth: history.month, day: day.day, currency: currency, price: Int64(Double(day.minimum) * factor),
                            simulated: offset == 1, in: db)
                    }
                }
            }
        }
        var inMemory = ForecastBacktest(model: histories.model, firstDay: histories.firstDay + 30, lastDay: histories.lastDay)
        for (offset, history) in histories.series.enumerated() {
            inMemory.add(history.days, route: history.route, departureMonth: history.month)
            if offset == 0 {
                let scaled = history.days.map { DailyMinimum(day: $0.day, minimum: Int64(Double($0.minimum) * 1.1), observations: 1) }
                inMemory.add(scaled, route: history.route, departureMonth: history.month)
            }
        }
        var fromTable = ForecastBacktest(model: histories.model, firstDay: histories.firstDay + 30, lastDay: histories.lastDay)
        try queue.read { db in try fromTable.addEverySeries(in: db) }
        #expect(fromTable.overall == inMemory.overall && fromTable.overall.forecasts > 0)
        #expect(fromTable.byRoute == inMemory.byRoute && fromTable.byConfidence == inMemory.byConfidence)
        #expect(fromTable.noSignal == inMemory.noSignal && fromTable.unscorable == inMemory.unscorable)
        // Only the second route's one series was stored as simulated.
        #expect(fromTable.simulatedSeries == 1 && inMemory.simulatedSeries == 0)
    }
}

/// Daily minimums of a few routes and departure months over 120 days, from
/// the simulated market's price model (SearchService's `MarketPricing`,
/// the market's own seeded generator): each day's minimum over every
/// departure of the month not yet gone.
struct SimulatedHistories {
    struct History {
        var route: RouteCabin
        var month: Int
        var days: [DailyMinimum]
    }

    let model: ForecastModel
    let firstDay = CalendarDate(year: 2026, month: 3, day: 1)!.daysSinceEpoch
    var lastDay: Int { firstDay + 119 }
    var series: [History] = []

    init(seed: UInt64) throws {
        let directory = try AirportDirectory.bundled()
        let market = try SimulatedMarket(directory: directory, seed: seed) { Date(timeIntervalSince1970: 0) }
        model = ForecastModel(curve: try BookingWindowCurve.bundled())
        let routes = [("LIS", "LHR"), ("CDG", "BCN"), ("JFK", "LAX"), ("MAD", "FCO"), ("AMS", "IST"), ("LHR", "JFK")]
        for (origin, destination) in routes {
            guard let from = directory.airport(origin), let to = directory.airport(destination) else { continue }
            for month in [202605, 202607, 202609] {
                let first = CalendarDate(year: month / 100, month: month % 100, day: 1)!
                let departures = (0 ..< 28).map { first.adding(days: $0) }
                let days = (firstDay ... lastDay).compactMap { day -> DailyMinimum? in
                    let today = CalendarDate(daysSinceEpoch: day)
                    let prices = departures.filter { $0.daysSinceEpoch >= day }.map { market.pricing.cheapestCents(from: from, to: to, departure: $0, today: today) }
                    return prices.min().map { DailyMinimum(day: day, minimum: $0, observations: prices.count) }
                }
                series.append(History(route: RouteCabin(origin: origin, destination: destination, cabin: Cabin.economy.rawValue), month: month, days: days))
            }
        }
    }
}
