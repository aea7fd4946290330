public import FareLensMessages
import Foundation

/// The DealScore: an integer 0–100, the documented weighted sum of four
/// components (docs/scoring.md, "DealScore formula"; SPEC §2).
///
/// Each component scores a fraction `f` in 0…1 of its weight and contributes
/// `round(weight × f)` points, so the points of the four components always
/// sum to the score and the score is in 0…100 (the weights sum to 100).
///
/// Pure and O(1): no allocation beyond the message's own arrays and the
/// typical-price text; the other reason texts come from tables built once.
public enum DealScoreFormula {
    // MARK: Weights (the components' max points; they sum to 100)

    /// Discount against the 90-day average, tempered by dispersion: the dominant factor.
    static let discountWeight = 70
    /// Route popularity: observation counts in the real fare data.
    static let popularityWeight = 10
    /// Time to departure: best 3–8 weeks out.
    static let departureWeight = 10
    /// Carrier reliability: on-time and cancelled-or-diverted rates.
    static let reliabilityWeight = 10

    // MARK: Discount

    /// Share of the z-score in the discount strength `s = zShare · z + (1 − zShare) · d / referenceDiscount`.
    static let zShare = 0.8
    /// The discount `d` that counts as much as one standard deviation in the strength.
    static let referenceDiscount = 0.25
    /// The standard deviation is taken as at least this fraction of the average,
    /// so a route whose price never moves does not make a cent's drop exceptional.
    static let dispersionFloor = 0.04
    /// Steepness `k` of the saturating curve `f = tanh(k · s)`.
    static let discountSteepness = 1.15

    // MARK: Popularity

    /// The observation count scored as neutral (f = ½): about the median route in the fare data (69).
    static let medianObservations = 70.0
    /// Popularity reaches f = 1 at this many times the median count, and 0 at the median over it.
    static let popularitySpan = 20.0

    // MARK: Time to departure

    /// Departures in this window (days) score full points.
    static let bestDepartureWindow = 21 ... 56
    /// f when departing today; rises linearly to 1 at the window's start.
    static let departingTodayFraction = 0.2
    /// From the window's end, f falls linearly to `farFractionFloor` at this many days and stays there.
    static let farDepartureDays = 240
    /// f for departures `farDepartureDays` or more away.
    static let farFractionFloor = 0.3

    // MARK: Reliability

    /// The reference carrier (f = ½, as an unknown carrier): the flight-weighted mean on-time
    /// fraction of carrier-reliability.csv (76.2%), so an average carrier scores as an unknown one.
    static let referenceOnTime = 0.762
    /// The reference carrier's cancelled-or-diverted fraction: the data's flight-weighted mean (2.8%).
    static let referenceCancelled = 0.028
    /// f gains this much per unit of on-time fraction above the reference (+0.1 → +0.2).
    static let onTimeSlope = 2.0
    /// f loses this much per unit of cancelled-or-diverted fraction above the reference (+0.01 → −0.05).
    static let cancelledSlope = 5.0

    // MARK: Rules

    /// More than this fraction below the 90-day average is a hot deal (exactly 40% is not).
    /// Compared exactly as `5 · price < 3 · average`, so rounding never makes exactly 40% hot.
    static let hotDealDiscount = 0.40

    // MARK: Scoring

    /// The points of each component of a fare with enough history: the
    /// arithmetic of ``score(_:)`` without its messages and texts, so a
    /// caller that keeps only deals (ingest) can skip those for the fares it
    /// drops. nil when the history is thin (NOT_ENOUGH_DATA).
    public struct Points: Sendable, Equatable {
        /// The discount component's points.
        public var discount: Int
        /// Its input, `(average − price) / average`.
        public var discountFraction: Double
        /// The route popularity component's points.
        public var popularity: Int
        /// The time-to-departure component's points.
        public var departure: Int
        /// The carrier reliability component's points.
        public var reliability: Int
        /// The carrier's reliability fraction (0…1) behind `reliability`.
        public var reliabilityFraction: Double
        /// The score: the sum of the four.
        public var total: Int { discount + popularity + departure + reliability }
    }

    /// The points behind ``score(_:)``, or nil when the history is not enough.
    public static func points(_ input: ScoreInput) -> Points? {
        guard let statistics = input.statistics, statistics.enoughData else { return nil }
        let average = statistics.average90
        let price = Double(input.price)
        let reliability = reliabilityFraction(input.carrier)
        return Points(
            discount: points(discountWeight, discountFraction(price: price, statistics: statistics)),
            discountFraction: average > 0 ? (average - price) / average : 0,
            popularity: points(popularityWeight, popularityFraction(input.routeObservations)),
            departure: points(departureWeight, departureFraction(days: input.daysToDeparture)),
            reliability: points(reliabilityWeight, reliability),
            reliabilityFraction: reliability)
    }

    /// The fare's DealScore with every field filled (NOT_ENOUGH_DATA: score 0, no components).
    public static func score(_ input: ScoreInput) -> DealScore {
        guard let statistics = input.statistics, let computed = points(input) else {
            var result = DealScore()
            result.score = 0
            result.tier = .notEnoughData
            result.reasons = [Reasons.notEnoughData(days: input.statistics?.daysOfHistory ?? 0)]
            return result
        }
        return score(input, statistics: statistics, points: computed)
    }

    /// The full score of a fare whose ``points(_:)`` were computed already.
    public static func score(_ input: ScoreInput, statistics: RouteStatistics, points: Points) -> DealScore {
        var result = DealScore()
        let average = statistics.average90
        let price = Double(input.price)
        let discount = points.discountFraction
        let basisPoints = clampedInt32((discount * 10_000).rounded())
        let discountPoints = points.discount
        let popularityPoints = points.popularity
        let departurePoints = points.departure
        let reliability = points.reliabilityFraction
        let reliabilityPoints = points.reliability
        let total = points.total

        let discountReason = Reasons.discount(basisPoints: basisPoints)
        let lowest = input.price <= statistics.lowestSixMonths
        let typicalLow = minorUnits(statistics.typicalLow)
        let typicalHigh = minorUnits(statistics.typicalHigh)
        let code = Reasons.normalizedCode(input.currency)

        result.score = Int32(total)
        result.tier = tier(total)
        result.hotDeal = average > 0 && price * 5 < average * 3 // price < (1 − hotDealDiscount) · average
        result.discountBasisPoints = basisPoints
        result.lowestInSixMonths = lowest
        result.average90Days = money(minorUnits(average), code: code)
        result.typicalLow = money(typicalLow, code: code)
        result.typicalHigh = money(typicalHigh, code: code)
        result.components = [
            component(.discount, discountPoints, discountWeight, input: discount, reason: discountReason),
            component(
                .routePopularity, popularityPoints, popularityWeight,
                input: Double(input.routeObservations ?? 0),
                reason: Reasons.popularity(input.routeObservations, points: popularityPoints)
            ),
            component(
                .timeToDeparture, departurePoints, departureWeight,
                input: Double(input.daysToDeparture), reason: Reasons.departure(days: input.daysToDeparture)
            ),
            component(
                .carrierReliability, reliabilityPoints, reliabilityWeight,
                input: input.carrier?.onTime ?? 0, reason: Reasons.reliability(input.carrier, fraction: reliability)
            ),
        ]
        var reasons: [String] = []
        reasons.reserveCapacity(3)
        reasons.append(discountReason)
        if lowest { reasons.append(Reasons.lowestInSixMonths) }
        reasons.append(Reasons.typicalPrice(low: typicalLow, high: typicalHigh, code: code))
        result.reasons = reasons
        return result
    }

    /// The tier of a score: ≥ 90 EXCEPTIONAL_PUSHED, ≥ 80 EXCEPTIONAL, ≥ 60 GOOD, below NOT_SHOWN.
    /// (NOT_ENOUGH_DATA is decided by the history, not by a score.)
    static func tier(_ score: Int) -> DealTier {
        switch score {
        case 90...: .exceptionalPushed
        case 80 ..< 90: .exceptional
        case 60 ..< 80: .good
        default: .notShown
        }
    }

    // MARK: Component fractions (each 0…1)

    /// Discount fraction: `tanh(k · s)` for strength `s = 0.8 · z + 0.2 · d / 0.25 > 0`, else 0, where
    /// `d = (average − price) / average` and `z = (average − price) / max(sd, 0.04 · average)`.
    static func discountFraction(price: Double, statistics: RouteStatistics) -> Double {
        let average = statistics.average90
        guard average > 0 else { return 0 }
        let drop = average - price
        let spread = max(statistics.standardDeviation90, dispersionFloor * average)
        let strength = zShare * (drop / spread) + (1 - zShare) * (drop / average) / referenceDiscount
        guard strength > 0 else { return 0 }
        return tanh(discountSteepness * strength)
    }

    /// Popularity fraction on a log scale: `½ + ln(n / 70) / (2 · ln 20)`, clamped to 0…1;
    /// ½ (a median route) when the route is not in the fare data.
    static func popularityFraction(_ observations: Int?) -> Double {
        guard let observations else { return 0.5 }
        guard observations > 0 else { return 0 }
        let fraction = 0.5 + log(Double(observations) / medianObservations) / (2 * log(popularitySpan))
        return min(max(fraction, 0), 1)
    }

    /// Time-to-departure fraction: 1 in the best window (21–56 days); from 0.2 today rising
    /// linearly to 1 at 21 days; falling linearly from 1 at 56 days to 0.3 at 240 days and beyond.
    static func departureFraction(days: Int) -> Double {
        let window = bestDepartureWindow
        if days <= 0 { return departingTodayFraction }
        if days < window.lowerBound {
            return departingTodayFraction + (1 - departingTodayFraction) * Double(days) / Double(window.lowerBound)
        }
        if days <= window.upperBound { return 1 }
        if days >= farDepartureDays { return farFractionFloor }
        let progress = Double(days - window.upperBound) / Double(farDepartureDays - window.upperBound)
        return 1 - (1 - farFractionFloor) * progress
    }

    /// Reliability fraction: `½ + 2 · (onTime − 0.762) − 5 · (cancelled − 0.028)`, clamped to 0…1;
    /// ½ (neutral) for an unknown carrier.
    static func reliabilityFraction(_ carrier: CarrierRecord?) -> Double {
        guard let carrier else { return 0.5 }
        let fraction = 0.5 + onTimeSlope * (carrier.onTime - referenceOnTime)
            - cancelledSlope * (carrier.cancelledOrDiverted - referenceCancelled)
        guard fraction.isFinite else { return 0.5 }
        return min(max(fraction, 0), 1)
    }

    // MARK: Helpers

    /// `round(weight × fraction)`, within 0…weight.
    private static func points(_ weight: Int, _ fraction: Double) -> Int {
        guard fraction.isFinite else { return 0 }
        return Int((Double(weight) * min(max(fraction, 0), 1)).rounded())
    }

    /// One structured component.
    private static func component(
        _ factor: ScoreFactor, _ points: Int, _ weight: Int, input: Double, reason: String
    ) -> ScoreComponent {
        var component = ScoreComponent()
        component.factor = factor
        component.points = Int32(points)
        component.maxPoints = Int32(weight)
        component.input = input.isFinite ? input : 0
        component.reason = reason
        return component
    }

    /// Money in an upper-case `code` (what `Money(minorUnits:currency:)` builds, without upper-casing again).
    private static func money(_ minorUnits: Int64, code: String) -> Money {
        var money = Money()
        money.minorUnits = minorUnits
        money.currency = code
        return money
    }

    /// A money amount rounded to whole minor units (half away from zero), clamped to Int64.
    static func minorUnits(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        let rounded = value.rounded()
        if rounded >= 9.2e18 { return Int64.max }
        if rounded <= -9.2e18 { return Int64.min }
        return Int64(rounded)
    }

    /// A rounded value clamped to Int32.
    private static func clampedInt32(_ value: Double) -> Int32 {
        guard value.isFinite else { return 0 }
        if value >= Double(Int32.max) { return Int32.max }
        if value <= Double(Int32.min) { return Int32.min }
        return Int32(value)
    }
}
