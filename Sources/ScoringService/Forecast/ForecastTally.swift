public import FareLensMessages

/// What happened to a route's lowest fare a week after a forecast: the
/// daily minimum ``ForecastModel/horizonDays`` days later against the
/// forecast day's.
public enum FareMove: Sendable, Equatable {
    case rose, fell, held

    /// `later` against `now`: higher is `rose`, lower `fell`, equal `held`.
    public init(from now: Int64, to later: Int64) {
        self = later > now ? .rose : later < now ? .fell : .held
    }
}

/// Scored forecasts and how many were right, beside the baseline "always
/// say likely to rise" on the same days.
public struct ForecastTally: Sendable, Equatable {
    /// Rise or fall forecasts scored against the fare a week later.
    public var forecasts = 0
    /// Of those, how many the move bore out (rise → rose, fall → fell).
    public var hits = 0
    /// Of the same days, how many rose: the hits of always saying "rise".
    public var baselineHits = 0

    public init(forecasts: Int = 0, hits: Int = 0, baselineHits: Int = 0) {
        self.forecasts = forecasts
        self.hits = hits
        self.baselineHits = baselineHits
    }

    /// Counts one scored forecast (a rise or a fall; any other outlook is not counted).
    public mutating func add(_ outlook: FareOutlook, _ move: FareMove) {
        guard outlook == .likelyToRise || outlook == .likelyToFall else { return }
        forecasts += 1
        if (outlook == .likelyToRise && move == .rose) || (outlook == .likelyToFall && move == .fell) { hits += 1 }
        if move == .rose { baselineHits += 1 }
    }

    /// Adds another tally's counts.
    public mutating func add(_ other: ForecastTally) {
        forecasts += other.forecasts
        hits += other.hits
        baselineHits += other.baselineHits
    }

    /// hits ÷ forecasts; nil without forecasts.
    public var hitRate: Double? { forecasts == 0 ? nil : Double(hits) / Double(forecasts) }
    /// baseline hits ÷ forecasts; nil without forecasts.
    public var baselineHitRate: Double? { forecasts == 0 ? nil : Double(baselineHits) / Double(forecasts) }
    /// Right more often than "always rise" on the same days (a tie does not beat it).
    public var beatsBaseline: Bool { hits > baselineHits }
}
