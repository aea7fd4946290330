public import FareLensMessages
public import FareLensServiceKit
import Foundation
import Synchronization

/// The simulated market's price model for one person, one way, economy,
/// in euro cents (see docs/search.md § Simulated market):
///
///     price = max(min, median × window(daysAhead) × exp(σ·z))
///
/// with σ = ln(median/min) / 2.5, z a standard normal mixing a per-departure
/// part (0.6) and a per-day part (0.8) so prices move day to day, and on 3%
/// of (departure, day) pairs a genuine dip to within a quarter of the
/// min–median gap above the minimum. Routes without observed fares use the
/// distance model fitted to the observed ones.
public struct MarketPricing: Sendable {
    let fares: RouteFareTable
    let window: BookingWindowCurve
    let distance: DistanceFareModel
    let random: StableRandom

    /// Creates the model.
    public init(fares: RouteFareTable, window: BookingWindowCurve, distance: DistanceFareModel, seed: UInt64) {
        self.fares = fares
        self.window = window
        self.distance = distance
        self.random = StableRandom(seed: seed)
    }

    /// The route's level: observed, or from distance when the route has no
    /// plausible observation (``isPlausible(_:kilometres:)``).
    public func level(from origin: AirportRecord, to destination: AirportRecord) -> RouteFareTable.Fare {
        let kilometres = origin.kilometers(to: destination)
        if let observed = fares.fare(from: origin, to: destination), Self.isPlausible(observed, kilometres: kilometres) { return observed }
        return distance.fare(kilometers: kilometres)
    }

    /// Whether an observed fare can be the route's: a route longer than
    /// 3,000 km with a median under 1.5 euro cents per km is taken as a city
    /// mapped to the wrong airport in the fare data (Venice → VNC, Florida;
    /// Naples → APF, Florida; 20–50 EUR "transatlantic" medians) and ignored.
    public static func isPlausible(_ fare: RouteFareTable.Fare, kilometres: Double) -> Bool {
        kilometres <= 3_000 || Double(fare.medianCents) >= 1.5 * kilometres
    }

    /// The cheapest one-way economy fare per person on `departure`, as seen on `today`.
    public func cheapestCents(from origin: AirportRecord, to destination: AirportRecord, departure: CalendarDate, today: CalendarDate) -> Int64 {
        let level = level(from: origin, to: destination)
        let median = Double(level.medianCents), minimum = Double(max(1, level.minimumCents))
        let key = "\(origin.code)-\(destination.code)|\(departure)"
        if random.uniform(key + "|\(today)|dip") < 0.03 {
            return Int64(minimum + (median - minimum) * 0.25 * random.uniform(key + "|\(today)|dip-depth"))
        }
        let sigma = min(0.8, max(0.05, log(median / minimum) / 2.5))
        let z = 0.6 * random.normal(key) + 0.8 * random.normal(key + "|\(today)")
        let price = median * window.factor(daysAhead: today.days(until: departure)) * exp(sigma * z)
        return Int64(max(minimum, price).rounded())
    }
}

/// Median and minimum one-way fare from great-circle distance, fitted by
/// least squares to the observed routes at start-up (no constants from elsewhere).
public struct DistanceFareModel: Sendable {
    /// median cents ≈ intercept + slope × km
    public let intercept: Double
    public let slope: Double
    /// The median of observed min/median ratios.
    public let minimumRatio: Double

    public init(intercept: Double, slope: Double, minimumRatio: Double) {
        self.intercept = intercept
        self.slope = slope
        self.minimumRatio = minimumRatio
    }

    /// ``fitted(to:directory:)``, fitted once per process for the bundled
    /// table over the bundled directory (every search service and test
    /// market of the process uses that pair).
    static func fittedOnce(to table: RouteFareTable, directory: AirportDirectory) -> DistanceFareModel {
        guard table.isBundled, let bundled = try? AirportDirectory.bundled(), bundled === directory else { return fitted(to: table, directory: directory) }
        return bundledFit.withLock { fit in
            if let fit { return fit }
            let model = fitted(to: table, directory: directory)
            fit = model
            return model
        }
    }

    private static let bundledFit = Mutex<DistanceFareModel?>(nil)

    /// Fits the model to `table`'s routes whose codes `directory` knows,
    /// leaving out implausible observations (``MarketPricing/isPlausible(_:kilometres:)``).
    static func fitted(to table: RouteFareTable, directory: AirportDirectory) -> DistanceFareModel {
        var points: [(Double, Double)] = []
        var ratios: [Double] = []
        for (key, fare) in table.all {
            let codes = key.split(separator: "-").map(String.init)
            guard codes.count == 2, let a = directory.representative(of: codes[0]), let b = directory.representative(of: codes[1]) else { continue }
            let kilometres = a.kilometers(to: b)
            guard MarketPricing.isPlausible(fare, kilometres: kilometres) else { continue }
            points.append((kilometres, Double(fare.medianCents)))
            ratios.append(Double(fare.minimumCents) / Double(max(1, fare.medianCents)))
        }
        guard points.count > 2 else { return DistanceFareModel(intercept: 5000, slope: 8, minimumRatio: 0.5) }
        let n = Double(points.count)
        let meanX = points.map(\.0).reduce(0, +) / n, meanY = points.map(\.1).reduce(0, +) / n
        let sxy = points.map { ($0.0 - meanX) * ($0.1 - meanY) }.reduce(0, +)
        let sxx = points.map { ($0.0 - meanX) * ($0.0 - meanX) }.reduce(0, +)
        let slope = sxx > 0 ? sxy / sxx : 0
        ratios.sort()
        return DistanceFareModel(intercept: max(1000, meanY - slope * meanX), slope: max(0, slope), minimumRatio: ratios[ratios.count / 2])
    }

    func fare(kilometers: Double) -> RouteFareTable.Fare {
        let median = Int64((intercept + slope * kilometers).rounded())
        return .init(medianCents: median, minimumCents: Int64((Double(median) * minimumRatio).rounded()), observations: 0)
    }
}
