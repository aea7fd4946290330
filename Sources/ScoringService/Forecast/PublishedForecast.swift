public import FareLensMessages

/// A forecast as a traveller sees it: the model's outlook only where its
/// measured accuracy beats the baseline, with that accuracy beside it.
public struct PublishedForecast: Sendable, Equatable {
    /// What the model said, with its reasons.
    public var forecast: FareForecast
    /// The outlook shown: the model's, or "no clear signal" when withheld.
    public var outlook: FareOutlook
    /// True when the model said rise or fall but its measured hit rate did
    /// not beat always saying "rise".
    public var withheld: Bool
    /// The measured accuracy the decision was made on.
    public var accuracy: ForecastTally
    /// Whether `accuracy` is the route's own (else the overall figures).
    public var accuracyIsRoutes: Bool
    /// The forecast's reasons, then one sentence on its measured accuracy.
    public var reasons: [String]

    /// Publishes `forecast` for `route` by the accuracy `backtest` measured.
    public init(_ forecast: FareForecast, route: RouteCabin, backtest: ForecastBacktest) {
        let (tally, own) = backtest.accuracy(for: route)
        self.forecast = forecast
        accuracy = tally
        accuracyIsRoutes = own
        withheld = forecast.outlook != .noClearSignal && !tally.beatsBaseline
        outlook = withheld ? .noClearSignal : forecast.outlook
        let scope = own ? "on this route and cabin" : "on all routes"
        var reasons = forecast.reasons
        if let rate = tally.hitRate, let baseline = tally.baselineHitRate {
            let measured = "Our forecasts \(scope) over the last \(backtest.lastDay - backtest.firstDay + 1) days were right \(tally.hits) of \(tally.forecasts) times "
                + "(\(ForecastWording.percent(rate))); always saying \"likely to rise\" would have been right \(ForecastWording.percent(baseline))."
            reasons.append(withheld ? measured + " That is no better, so this forecast is withheld." : measured)
        } else {
            // No scored forecast cannot beat the baseline: a rise or fall is withheld (above).
            reasons.append("No forecast \(scope) has been scored yet, so none is shown.")
        }
        self.reasons = reasons
    }
}
