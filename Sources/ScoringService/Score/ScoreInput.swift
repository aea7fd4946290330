import Foundation

/// A carrier's record (real data, carrier-reliability.csv): fractions, e.g. 0.818 and 0.0094.
public struct CarrierRecord: Sendable, Equatable {
    /// The fraction of flights on time (0.818 for 81.8%).
    public var onTime: Double
    /// The fraction of flights cancelled or diverted (0.0094 for 0.94%).
    public var cancelledOrDiverted: Double

    /// A record from fractions (0.818 on time, 0.0094 cancelled or diverted).
    public init(onTime: Double, cancelledOrDiverted: Double) {
        self.onTime = onTime
        self.cancelledOrDiverted = cancelledOrDiverted
    }
}

/// Everything one score needs.
public struct ScoreInput: Sendable {
    /// Per-person price, minor units.
    public var price: Int64
    /// ISO 4217, the same as the history's.
    public var currency: String
    /// The route's history; nil or not `enoughData` → NOT_ENOUGH_DATA.
    public var statistics: RouteStatistics?
    /// Observation count in the real fare data; nil when the route is not in it (scored as a median route).
    public var routeObservations: Int?
    /// Days from today to the departure date.
    public var daysToDeparture: Int
    /// The carrier's record; nil → neutral.
    public var carrier: CarrierRecord?

    /// An input; see each property.
    public init(price: Int64, currency: String, statistics: RouteStatistics?, routeObservations: Int?, daysToDeparture: Int, carrier: CarrierRecord?) {
        self.price = price
        self.currency = currency
        self.statistics = statistics
        self.routeObservations = routeObservations
        self.daysToDeparture = daysToDeparture
        self.carrier = carrier
    }
}
