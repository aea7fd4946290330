public import FareLensMessages

/// A route and cabin, the unit a route's forecast accuracy is kept for.
public struct RouteCabin: Hashable, Sendable {
    public var origin: String
    public var destination: String
    /// `Cabin`'s raw value.
    public var cabin: Int

    public init(origin: String, destination: String, cabin: Int) {
        self.origin = origin
        self.destination = destination
        self.cabin = cabin
    }
}

/// Every forecast the model would have made on the days of a window,
/// scored against what happened a week later (docs/forecast.md, "How it is
/// measured"): overall, per confidence band and per route and cabin.
///
/// A forecast is made on day `d` when the series has a price that day
/// (and two weeks of history before it); it is scored when the series also
/// has a price on `d + 7`, so the forecast days run from `firstDay` to
/// `lastDay − 7`.
public struct ForecastBacktest: Sendable {
    /// A route with fewer scored forecasts than this is judged by the
    /// overall figures, not its own.
    public static let enoughForecastsPerRoute = 20

    public let model: ForecastModel
    /// The first forecast day.
    public let firstDay: Int
    /// The last day with a known outcome (today): forecasts up to `lastDay − 7`.
    public let lastDay: Int

    public private(set) var overall = ForecastTally()
    public private(set) var byConfidence: [ForecastConfidence: ForecastTally] = [:]
    public private(set) var byRoute: [RouteCabin: ForecastTally] = [:]
    /// Forecast days on which the model said "no clear signal".
    public private(set) var noSignal = 0
    /// Rise or fall forecasts with no price a week later to score them by.
    public private(set) var unscorable = 0
    /// Series with days from the simulated market: the figures are then
    /// labelled simulated.
    public private(set) var simulatedSeries = 0

    /// An empty backtest of the forecasts made from `firstDay` that a week
    /// later had happened by `lastDay`.
    public init(model: ForecastModel, firstDay: Int, lastDay: Int) {
        self.model = model
        self.firstDay = firstDay
        self.lastDay = lastDay
    }

    /// Scores the forecasts of one series: `route`'s daily minimums in one
    /// currency for `departureMonth` (`yyyymm`), sorted by day, one per day;
    /// `simulated` when any of its days came from the simulated market.
    public mutating func add(_ series: [DailyMinimum], route: RouteCabin, departureMonth: Int, simulated: Bool = false) {
        if simulated { simulatedSeries += 1 }
        let horizon = ForecastModel.horizonDays
        var tally = ForecastTally()
        var outcome = 0  // index of the first day not before the forecast day + horizon
        for index in series.indices {
            let day = series[index].day
            guard day >= firstDay else { continue }
            guard day + horizon <= lastDay else { break }
            guard let forecast = model.forecast(series, at: index, departureMonth: departureMonth) else { continue }
            guard forecast.outlook != .noClearSignal else {
                noSignal += 1
                continue
            }
            while outcome < series.count, series[outcome].day < day + horizon { outcome += 1 }
            guard outcome < series.count, series[outcome].day == day + horizon else {
                unscorable += 1
                continue
            }
            let move = FareMove(from: series[index].minimum, to: series[outcome].minimum)
            tally.add(forecast.outlook, move)
            byConfidence[forecast.confidence, default: ForecastTally()].add(forecast.outlook, move)
        }
        overall.add(tally)
        if tally.forecasts > 0 { byRoute[route, default: ForecastTally()].add(tally) }
    }

    /// The figures `route`'s forecasts are judged by: its own when it has
    /// ``enoughForecastsPerRoute`` scored forecasts, otherwise the overall ones.
    public func accuracy(for route: RouteCabin) -> (tally: ForecastTally, ownRoute: Bool) {
        if let own = byRoute[route], own.forecasts >= Self.enoughForecastsPerRoute { return (own, true) }
        return (overall, false)
    }
}
