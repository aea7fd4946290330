/// The forecast's sentences: one per signal that counts (at least 1%),
/// then the conclusion. Numbers are rounded percentages of the model's own
/// inputs, never more than the model computed.
enum ForecastWording {
    /// A signal below this (either way) is not mentioned.
    static let mentionAt = 0.01

    static func reasons(for forecast: FareForecast) -> [String] {
        var reasons: [String] = []
        if abs(forecast.bookingWindowChange) >= mentionAt {
            let lead = max(0, forecast.leadDays)
            let direction = forecast.bookingWindowChange > 0 ? "rise" : "fall"
            reasons.append(
                "The month's departures still ahead are on average about \(lead) days away; fares usually \(direction) about \(percent(forecast.bookingWindowChange)) "
                    + "in the following week at that distance (booking-window data from 127,000 real flights).")
        }
        let offMedian = forecast.trailingMedian > 0 ? Double(forecast.price) / forecast.trailingMedian - 1 : 0
        if abs(offMedian) >= mentionAt * 2 {
            let side = offMedian < 0 ? "below" : "above"
            reasons.append(
                "Today's lowest fare is \(percent(offMedian)) \(side) its median of the last two weeks; "
                    + "fares this far \(side) it usually move back part of the way.")
        }
        switch forecast.outlook {
        case .likelyToRise: reasons.append("Together: expect about \(percent(forecast.expectedChange)) higher in a week — buying now looks better than waiting.")
        case .likelyToFall: reasons.append("Together: expect about \(percent(forecast.expectedChange)) lower in a week — waiting looks better than buying now.")
        case .noClearSignal, .unspecified, .UNRECOGNIZED: reasons.append("Together the signals are too weak (under \(percent(ForecastModel.signalThreshold)) either way) to say which way fares will go.")
        }
        return reasons
    }

    /// "12%" (absolute, rounded to a whole percent).
    static func percent(_ fraction: Double) -> String {
        "\(Int((abs(fraction) * 100).rounded()))%"
    }
}
