import FareLensMessages
import FareLensStore
import Foundation
import GRDB

/// Buy or wait (docs/forecast.md): the forecast for a route, cabin and
/// departure month, published beside its measured accuracy.
extension ScoringService {
    /// The days whose forecasts the backtest scores.
    static let forecastWindowDays = 180

    /// The forecast from the route's latest daily minimum (today's or
    /// yesterday's), withheld unless its measured hit rate beats always
    /// saying "rise"; `enough_data` false when there is no forecast today.
    func fareForecast(_ request: FareForecastRequest) async throws(ScoringError) -> FareForecastResponse {
        let (origin, destination) = try await route(request.origin, request.destination)
        let cabin = try Self.cabin(request.cabin)
        guard (2000 ... 2100).contains(request.departureYear) else { throw .invalidField("departure_year", "\(request.departureYear) is not in 2000–2100") }
        guard (1 ... 12).contains(request.departureMonth) else { throw .invalidField("departure_month", "\(request.departureMonth) is not a month (1–12)") }
        let now = clock.now()
        let today = Self.day(of: now)
        let todayDate = CalendarDate(daysSinceEpoch: today)
        let month = Int(request.departureYear) * 100 + Int(request.departureMonth)
        guard month >= todayDate.year * 100 + todayDate.month else {
            throw .invalidField("departure_month", "\(request.departureYear)-\(request.departureMonth) is in the past")
        }
        let backtest = try await forecastAccuracy(today: today)
        let (series, simulated) = try read { db in
            let currency = try DailyMinimumRecord.mainCurrency(origin: origin, destination: destination, cabin: cabin.rawValue, in: db)
            let series = try DailyMinimumRecord.days(
                origin: origin, destination: destination, cabin: cabin.rawValue, departureMonth: month, currency: currency,
                since: today - ForecastModel.trailingDays - 1, in: db)
            let simulated = try DailyMinimumRecord.anySimulated(
                origin: origin, destination: destination, cabin: cabin.rawValue, departureMonth: month, currency: currency, in: db)
            return (series.filter { $0.day <= today }, simulated)
        }
        var response = FareForecastResponse()
        response.horizonDays = Int32(ForecastModel.horizonDays)
        response.windowDays = Int32(Self.forecastWindowDays)
        response.measuredThrough = todayDate.message
        response.accuracyMedium = Self.accuracy(backtest.byConfidence[.medium] ?? ForecastTally())
        response.accuracyHigh = Self.accuracy(backtest.byConfidence[.high] ?? ForecastTally())
        response.simulated = simulated || backtest.simulatedSeries > 0
        let route = RouteCabin(origin: origin, destination: destination, cabin: cabin.rawValue)
        guard let latest = series.last, latest.day >= today - 1,
              let forecast = ForecastModel(curve: reference.bookingWindow).forecast(series, at: series.count - 1, departureMonth: month) else {
            let judged = backtest.accuracy(for: route)
            response.accuracy = Self.accuracy(judged.tally)
            response.accuracyIsRoutes = judged.ownRoute
            response.outlook = .noClearSignal
            response.modelOutlook = .noClearSignal
            response.reasons = [
                "Not enough recent fares for this month: a forecast needs a fare observed today or yesterday and on at least "
                    + "\(ForecastModel.minimumTrailingDays) of the \(ForecastModel.trailingDays) days before it."
            ]
            return response
        }
        let published = PublishedForecast(forecast, route: route, backtest: backtest)
        response.enoughData = true
        response.outlook = published.outlook
        response.modelOutlook = forecast.outlook
        response.confidence = published.withheld ? .unspecified : forecast.confidence
        response.withheld = published.withheld
        response.expectedChange = forecast.expectedChange
        response.reasons = published.reasons
        response.madeOn = CalendarDate(daysSinceEpoch: latest.day).message
        response.accuracy = Self.accuracy(published.accuracy)
        response.accuracyIsRoutes = published.accuracyIsRoutes
        return response
    }

    /// The backtest through `today`, made once a day (the housekeeping
    /// round makes it ahead of the first request of the day).
    func forecastAccuracy(today: Int) async throws(ScoringError) -> ForecastBacktest {
        if let measured = forecastBacktest, measured.lastDay == today { return measured }
        let model = ForecastModel(curve: reference.bookingWindow)
        let measured: ForecastBacktest
        do {
            // On the database's reader, off this actor's executor (10,000 routes: about 3 s).
            measured = try await database.writer.read { db in
                var backtest = ForecastBacktest(model: model, firstDay: today - Self.forecastWindowDays + 1, lastDay: today)
                try backtest.addEverySeries(in: db)
                return backtest
            }
        } catch {
            throw .storage(error)
        }
        if forecastBacktest.map({ $0.lastDay < today }) ?? true {
            forecastBacktest = measured
            logger.info("forecasts measured", metadata: [
                "through": "\(CalendarDate(daysSinceEpoch: today))", "forecasts": "\(measured.overall.forecasts)", "hits": "\(measured.overall.hits)",
                "baseline_hits": "\(measured.overall.baselineHits)",
            ])
        }
        return measured
    }

    static func accuracy(_ tally: ForecastTally) -> ForecastAccuracy {
        var accuracy = ForecastAccuracy()
        accuracy.forecasts = Int32(clamping: tally.forecasts)
        accuracy.hits = Int32(clamping: tally.hits)
        accuracy.baselineHits = Int32(clamping: tally.baselineHits)
        accuracy.hitRate = tally.hitRate ?? 0
        accuracy.baselineHitRate = tally.baselineHitRate ?? 0
        return accuracy
    }
}
