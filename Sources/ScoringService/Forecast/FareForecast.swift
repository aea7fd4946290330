/// Where a route's lowest fare for one cabin and departure month is likely
/// to go over the next week (issue #59, "buy or wait").
public enum FareOutlook: String, Sendable, Codable, CaseIterable {
    /// Buying now beats waiting a week, more often than not.
    case rise = "likely to rise"
    /// Waiting a week finds a lower fare, more often than not.
    case fall = "likely to fall"
    /// The signals are weak or cancel out, or the forecast has not beaten
    /// its baseline on this node's own history (withheld).
    case noClearSignal = "no clear signal"
}

/// How strong a forecast's signal is: its expected change is beyond
/// ``ForecastModel/signalThreshold`` (medium) or twice that (high). Each
/// band's hit rate is measured and published on its own.
public enum ForecastConfidence: String, Sendable, Codable, CaseIterable {
    case medium
    case high
}

/// One forecast: the outlook, its confidence, and the two signals behind
/// it with one sentence each.
public struct FareForecast: Sendable, Equatable {
    /// The outlook the model gives (before any withholding).
    public var outlook: FareOutlook
    /// Nil for ``FareOutlook/noClearSignal``.
    public var confidence: ForecastConfidence?
    /// The change expected over the next ``ForecastModel/horizonDays`` days:
    /// 0.05 for 5% higher. The sum of the two signals below.
    public var expectedChange: Double
    /// How fares this far ahead usually move in a week (the real
    /// booking-window curve).
    public var bookingWindowChange: Double
    /// Half the way back from today's fare to its two-week median.
    public var reversionChange: Double
    /// Today's lowest fare, in minor units.
    public var price: Int64
    /// The median of the daily lowest fares of the two weeks before today.
    public var trailingMedian: Double
    /// Days from today to the middle (the 15th) of the departure month.
    public var leadDays: Int
    /// One plain sentence per signal that counts, then the conclusion.
    public var reasons: [String]
}
