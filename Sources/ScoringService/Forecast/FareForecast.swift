public import FareLensMessages

/// One forecast: the outlook, its confidence, and the two signals behind
/// it with one sentence each.
public struct FareForecast: Sendable, Equatable {
    /// The outlook the model gives (before any withholding): likely to
    /// rise, likely to fall, or no clear signal (`scoring.proto`'s `FareOutlook`).
    public var outlook: FareOutlook
    /// Medium beyond ``ForecastModel/signalThreshold``, high beyond
    /// ``ForecastModel/highConfidence``; unspecified with no clear signal.
    public var confidence: ForecastConfidence
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
    /// Days from today to the middle of the departure month's departures still ahead.
    public var leadDays: Int
    /// One plain sentence per signal that counts, then the conclusion.
    public var reasons: [String]
}
