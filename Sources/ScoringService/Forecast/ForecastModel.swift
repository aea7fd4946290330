import FareLensMessages
public import FareLensServiceKit

/// The buy-or-wait model (docs/forecast.md): two signals, each explainable
/// in one sentence, added.
///
/// 1. **Booking window**: how a fare usually moves between the departure's
///    lead time a week from now and today's, from the real booking-window
///    curve (`booking-window.csv`, 126,988 flights): e.g. +4% from 15–21 to
///    8–14 days out (median premiums 8.5% and 12.9% over the lowest fare).
/// 2. **Reversion**: a day's lowest fare far from its two-week median tends
///    to move back towards it; the model expects half the way back.
///
/// The expected change beyond ±``signalThreshold`` gives "likely to rise"
/// or "likely to fall"; within it, "no clear signal". Pure: the same
/// history gives the same forecast, so a forecast made on any past day can
/// be made again, and scored, from the history alone.
public struct ForecastModel: Sendable {
    /// How far ahead a forecast looks, in days.
    public static let horizonDays = 7
    /// The window whose median today's fare is compared with, in days before today.
    public static let trailingDays = 14
    /// Fewer daily minimums than this in the trailing window: no forecast.
    public static let minimumTrailingDays = 7
    /// An expected change smaller than this (either way) is no clear signal.
    public static let signalThreshold = 0.03
    /// An expected change at least this large is "high" confidence.
    public static let highConfidence = 0.06
    /// The share of the way back to the median the model expects in a week.
    public static let reversionShare = 0.5

    /// The real booking-window curve.
    public let curve: BookingWindowCurve

    /// A model reading `curve`.
    public init(curve: BookingWindowCurve) {
        self.curve = curve
    }

    /// The forecast made on the day of `series[index]`, from that day and
    /// the days before it only.
    ///
    /// - Parameters:
    ///   - series: one route's, cabin's, currency's and departure month's
    ///     daily minimums, sorted by day, one per day.
    ///   - index: the position of the forecast's day in `series`.
    ///   - departureMonth: `yyyymm`.
    /// - Returns: nil when the trailing two weeks hold fewer than
    ///   ``minimumTrailingDays`` days, or the whole departure month is past.
    ///
    /// The lead time read from the curve is that of the middle of the
    /// month's departures still ahead (halfway from the later of the 1st
    /// and today to the month's last day).
    public func forecast(_ series: [DailyMinimum], at index: Int, departureMonth: Int) -> FareForecast? {
        let today = series[index].day
        // The middle of the month's departures still ahead: its 15th or so, or,
        // once the month has begun, halfway from today to its last day.
        guard let first = CalendarDate(year: departureMonth / 100, month: departureMonth % 100, day: 1) else { return nil }
        let next = departureMonth % 100 == 12 ? (departureMonth / 100 + 1) * 100 + 1 : departureMonth + 1
        guard let following = CalendarDate(year: next / 100, month: next % 100, day: 1) else { return nil }
        let last = following.daysSinceEpoch - 1
        guard last >= today else { return nil }
        let lead = (max(first.daysSinceEpoch, today) + last) / 2 - today
        var trailing: [Int64] = []
        trailing.reserveCapacity(Self.trailingDays)
        var position = index - 1
        while position >= 0, series[position].day >= today - Self.trailingDays {
            trailing.append(series[position].minimum)
            position -= 1
        }
        guard trailing.count >= Self.minimumTrailingDays else { return nil }
        trailing.sort()
        let median = trailing.count % 2 == 1
            ? Double(trailing[trailing.count / 2])
            : Double(trailing[trailing.count / 2 - 1] + trailing[trailing.count / 2]) / 2
        let price = series[index].minimum
        let bookingWindow = curve.change(daysAhead: max(0, lead - Self.horizonDays), over: Self.horizonDays)
        let reversion = median > 0 ? Self.reversionShare * (median / Double(price) - 1) : 0
        let expected = bookingWindow + reversion
        let outlook: FareOutlook = expected >= Self.signalThreshold ? .likelyToRise : expected <= -Self.signalThreshold ? .likelyToFall : .noClearSignal
        let confidence: ForecastConfidence = outlook == .noClearSignal ? .unspecified : abs(expected) >= Self.highConfidence ? .high : .medium
        var forecast = FareForecast(
            outlook: outlook, confidence: confidence, expectedChange: expected, bookingWindowChange: bookingWindow,
            reversionChange: reversion, price: price, trailingMedian: median, leadDays: lead, reasons: [])
        forecast.reasons = ForecastWording.reasons(for: forecast)
        return forecast
    }
}

extension ForecastModel {
    /// The model over scoring's bundled booking-window curve.
    public static func bundled() throws(BundledDataError) -> ForecastModel {
        ForecastModel(curve: try ReferenceData.bundled().bookingWindow)
    }
}
