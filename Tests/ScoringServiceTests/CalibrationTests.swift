import Foundation
@testable import ScoringService
import FareLensTesting
import Testing

/// The calibration of SPEC §2 as properties over many generated routes
/// (docs/scoring.md, "Calibration"): with the other factors neutral (median
/// popularity, 45 days out, unknown carrier), a fare at the route's median is
/// not shown, one at its 10th percentile is good, one two standard deviations
/// below the average is exceptional, and the same percentage off is worth
/// less on a volatile route.
///
/// Deterministic: every route comes from a fixed SplitMix64 seed.
@Suite("DealScore calibration, generated routes")
struct CalibrationTests {
    /// The 256 generated routes (8 kinds × 32), built once.
    static let routes = GeneratedRoute.all(seed: 0x5EED_FA2E_1E45, perKind: 32)

    /// The score of `price` on `route` with the other factors neutral.
    static func neutralScore(_ price: Double, on statistics: RouteStatistics) -> Int {
        let input = ScoreInput(
            price: Int64(price.rounded()), currency: "EUR", statistics: statistics,
            routeObservations: nil, daysToDeparture: 45, carrier: nil
        )
        return Int(DealScoreFormula.score(input).score)
    }

    @Test("the generator covers every kind: stable and volatile, short- and long-haul, normal and log-normal, 90 days each")
    func generatorCoversTheKinds() {
        #expect(Self.routes.count == 256)
        for route in Self.routes {
            let variation = route.statistics.standardDeviation90 / route.statistics.average90
            // Sampled 90 days, the coefficient of variation lands near its target band.
            let band = route.kind.stable ? 0.03 ... 0.16 : 0.15 ... 0.60
            #expect(band.contains(variation), "\(route)")
            let averages = route.kind.longHaul ? 30_000.0 ... 200_000 : 2_000.0 ... 20_000
            #expect(averages.contains(route.statistics.average90), "\(route)")
            #expect(route.series.count == 90 && route.statistics.daysOfHistory == 90)
        }
        #expect(Set(Self.routes.map(\.kind)).count == 8)
    }

    @Test("a fare at the route's median is not shown (< 60) on every generated route")
    func medianIsNotShown() {
        for route in Self.routes {
            let score = Self.neutralScore(route.percentile(0.5), on: route.statistics)
            #expect(score < 60, "median \(route.percentile(0.5)) scored \(score): \(route)")
        }
    }

    @Test("a fare at the route's 10th percentile is good or better (≥ 60) on every generated route")
    func tenthPercentileIsGood() {
        for route in Self.routes {
            let score = Self.neutralScore(route.percentile(0.1), on: route.statistics)
            #expect(score >= 60, "p10 \(route.percentile(0.1)) scored \(score): \(route)")
        }
    }

    @Test("a fare two standard deviations below the average is exceptional (≥ 80) on every generated route")
    func twoDeviationsBelowIsExceptional() {
        var checked = 0
        for route in Self.routes {
            let price = route.statistics.average90 - 2 * route.statistics.standardDeviation90
            guard price > 0 else { continue }
            checked += 1
            let score = Self.neutralScore(price, on: route.statistics)
            #expect(score >= 80, "average − 2 SD = \(price) scored \(score): \(route)")
        }
        #expect(checked >= 200)
    }

    @Test("the same percentage off scores lower on a volatile route than on a stable route of the same average")
    func volatileRouteScoresLower() {
        var rng = SplitMix64(seed: 0xD15_9E55)
        for pair in 0 ..< 128 {
            let longHaul = pair % 2 == 0
            let skewed = pair % 4 < 2
            let average = longHaul ? rng.uniform(40_000 ... 150_000) : rng.uniform(3_000 ... 15_000)
            let stable = GeneratedRoute(
                kind: .init(stable: true, longHaul: longHaul, skewed: skewed), average: average,
                variation: rng.uniform(0.05 ... 0.12), rng: &rng
            )
            // The volatile route is rescaled to the stable one's 90-day average.
            let volatile = GeneratedRoute(
                kind: .init(stable: false, longHaul: longHaul, skewed: skewed), average: average,
                variation: rng.uniform(0.25 ... 0.45), rng: &rng
            ).rescaled(toAverage: stable.statistics.average90)
            #expect(abs(volatile.statistics.average90 - stable.statistics.average90) < 1)
            for off in [0.15, 0.25, 0.35] {
                let price = stable.statistics.average90 * (1 - off)
                let onStable = Self.neutralScore(price, on: stable.statistics)
                let onVolatile = Self.neutralScore(price, on: volatile.statistics)
                #expect(onVolatile < onStable, "\(Int(off * 100))% off: volatile \(onVolatile), stable \(onStable); \(volatile) vs \(stable)")
            }
        }
    }
}

extension CalibrationTests {
    /// One generated route: 90 days of daily minimums and their statistics.
    struct GeneratedRoute: CustomStringConvertible {
        /// What kind of route it is.
        struct Kind: Hashable {
            /// Coefficient of variation 5–12% (stable) or 25–45% (volatile).
            var stable: Bool
            /// Averages 40,000–150,000 minor units (long-haul) or 3,000–15,000 (short-haul).
            var longHaul: Bool
            /// Log-normal (right-skewed) or roughly normal daily minimums.
            var skewed: Bool
        }

        /// The day the series ends (days since epoch).
        static let today = 20_500

        /// What kind of route it is.
        var kind: Kind
        /// The average the generator aimed at.
        var targetAverage: Double
        /// The coefficient of variation the generator aimed at.
        var targetVariation: Double
        /// The 90 daily minimums, oldest first.
        var series: [Int64]
        /// Their statistics as the service computes them.
        var statistics: RouteStatistics

        /// A route of `kind` around `average` with coefficient of variation `variation`.
        ///
        /// Daily minimums follow an AR(1) latent process (day-to-day correlation
        /// 0–0.6, as fares drift rather than jump) mapped to a normal price
        /// (floored at 15% of the average: fares are never free) or a log-normal
        /// one with the same mean and variation.
        init(kind: Kind, average: Double, variation: Double, rng: inout SplitMix64) {
            let correlation = rng.uniform(0 ... 0.6)
            let innovation = (1 - correlation * correlation).squareRoot()
            let sigma = log(1 + variation * variation).squareRoot()
            let mu = log(average) - sigma * sigma / 2
            var latent = rng.normal()
            var series: [Int64] = []
            series.reserveCapacity(90)
            for _ in 0 ..< 90 {
                latent = correlation * latent + innovation * rng.normal()
                let price = kind.skewed ? exp(mu + sigma * latent) : max(average * (1 + variation * latent), 0.15 * average)
                series.append(Int64(price.rounded()))
            }
            self.init(kind: kind, targetAverage: average, targetVariation: variation, series: series)
        }

        /// A route from a ready series.
        init(kind: Kind, targetAverage: Double, targetVariation: Double, series: [Int64]) {
            self.kind = kind
            self.targetAverage = targetAverage
            self.targetVariation = targetVariation
            self.series = series
            let days = series.enumerated().map {
                DailyMinimum(day: Self.today - (series.count - 1) + $0.offset, minimum: $0.element, observations: 3)
            }
            // A non-empty series ending today always has statistics.
            statistics = RouteStatistics.compute(days, today: Self.today)
                ?? RouteStatistics(
                    daysOfHistory: 0, average30: nil, average90: 0, standardDeviation90: 0, typicalLow: 0, typicalHigh: 0,
                    lowestSixMonths: 0, lowestSixMonthsDay: 0, samples90: 0, samples30: 0
                )
        }

        /// The same route scaled so its 90-day average is `average` (within rounding).
        func rescaled(toAverage average: Double) -> GeneratedRoute {
            let factor = average / statistics.average90
            let scaled = series.map { Int64((Double($0) * factor).rounded()) }
            return GeneratedRoute(kind: kind, targetAverage: average, targetVariation: targetVariation, series: scaled)
        }

        /// The empirical `fraction` percentile of the series (linear interpolation between closest ranks).
        func percentile(_ fraction: Double) -> Double {
            let sorted = series.sorted().map(Double.init)
            let rank = Double(sorted.count - 1) * fraction
            let lower = Int(rank)
            let upper = min(lower + 1, sorted.count - 1)
            return sorted[lower] + (rank - Double(lower)) * (sorted[upper] - sorted[lower])
        }

        /// `perKind` routes of each of the 8 kinds, from one seed.
        static func all(seed: UInt64, perKind: Int) -> [GeneratedRoute] {
            var rng = SplitMix64(seed: seed)
            var routes: [GeneratedRoute] = []
            for index in 0 ..< 8 * perKind {
                let kind = Kind(stable: index % 2 == 0, longHaul: index / 2 % 2 == 0, skewed: index / 4 % 2 == 0)
                let average = kind.longHaul ? rng.uniform(40_000 ... 150_000) : rng.uniform(3_000 ... 15_000)
                let variation = kind.stable ? rng.uniform(0.05 ... 0.12) : rng.uniform(0.25 ... 0.45)
                routes.append(GeneratedRoute(kind: kind, average: average, variation: variation, rng: &rng))
            }
            return routes
        }

        /// The kind, the targets and what was measured, for failure messages.
        var description: String {
            let shape = "\(kind.stable ? "stable" : "volatile") \(kind.longHaul ? "long-haul" : "short-haul") \(kind.skewed ? "log-normal" : "normal")"
            let target = "target average \(Int(targetAverage)), CV \(Int(targetVariation * 100))%"
            let measured = "measured average \(Int(statistics.average90)), SD \(Int(statistics.standardDeviation90))"
            return "\(shape) (\(target); \(measured))"
        }
    }
}
