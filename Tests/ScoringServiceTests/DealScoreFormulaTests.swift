import FareLensMessages
@testable import ScoringService
import Testing

/// The DealScore formula, one rule per test (SPEC §2; docs/scoring.md, "DealScore formula").
@Suite("DealScore formula")
struct DealScoreFormulaTests {
    // MARK: Fixtures

    /// The worked example of docs/scoring.md: €87.50 average, SD €15, typical €80–95, 6-month low €69.
    static let example = RouteStatistics(
        daysOfHistory: 60, average30: 8_600, average90: 8_750, standardDeviation90: 1_500,
        typicalLow: 8_000, typicalHigh: 9_500, lowestSixMonths: 6_900, lowestSixMonthsDay: 20_400,
        samples90: 60, samples30: 25
    )
    /// Delta Air Lines in carrier-reliability.csv: 81.8% on time, 0.94% cancelled or diverted.
    static let delta = CarrierRecord(onTime: 0.818, cancelledOrDiverted: 0.0094)
    /// Hawaiian Airlines: 87.4% on time, none cancelled or diverted.
    static let hawaiian = CarrierRecord(onTime: 0.874, cancelledOrDiverted: 0)
    /// ExpressJet Airlines: 68.6% on time, 5.66% cancelled or diverted.
    static let expressJet = CarrierRecord(onTime: 0.686, cancelledOrDiverted: 0.0566)
    /// Mesa Airlines: 68.6% on time, 9.48% cancelled or diverted.
    static let mesa = CarrierRecord(onTime: 0.686, cancelledOrDiverted: 0.0948)

    /// A route with the given 90-day average and standard deviation (typical range ±⅔ SD, low far below).
    static func route(average: Double, deviation: Double, days: Int = 60) -> RouteStatistics {
        RouteStatistics(
            daysOfHistory: days, average30: average, average90: average, standardDeviation90: deviation,
            typicalLow: average - deviation * 2 / 3, typicalHigh: average + deviation * 2 / 3,
            lowestSixMonths: 1, lowestSixMonthsDay: 20_000, samples90: days, samples30: min(days, 30)
        )
    }

    /// A fare with neutral other factors unless given: median popularity, 45 days out, unknown carrier.
    static func input(
        _ price: Int64, _ statistics: RouteStatistics?, observations: Int? = nil, days: Int = 45,
        carrier: CarrierRecord? = nil, currency: String = "EUR"
    ) -> ScoreInput {
        ScoreInput(
            price: price, currency: currency, statistics: statistics, routeObservations: observations,
            daysToDeparture: days, carrier: carrier
        )
    }

    /// Points of one factor in a score (0 when absent).
    static func points(_ score: DealScore, _ factor: ScoreFactor) -> Int {
        Int(score.components.first { $0.factor == factor }?.points ?? 0)
    }

    // MARK: Tiers

    @Test("59 is not shown and 60 is good")
    func tierEdgeGood() {
        #expect(DealScoreFormula.tier(59) == .notShown)
        #expect(DealScoreFormula.tier(60) == .good)
    }

    @Test("79 is good and 80 is exceptional")
    func tierEdgeExceptional() {
        #expect(DealScoreFormula.tier(79) == .good)
        #expect(DealScoreFormula.tier(80) == .exceptional)
    }

    @Test("89 is exceptional and 90 is exceptional and pushed at once")
    func tierEdgePushed() {
        #expect(DealScoreFormula.tier(89) == .exceptional)
        #expect(DealScoreFormula.tier(90) == .exceptionalPushed)
    }

    @Test("0 is not shown and 100 is pushed")
    func tierEnds() {
        #expect(DealScoreFormula.tier(0) == .notShown)
        #expect(DealScoreFormula.tier(100) == .exceptionalPushed)
    }

    @Test("a score's tier is the tier of its number")
    func scoreCarriesItsTier() {
        for price in stride(from: Int64(4_000), through: 12_000, by: 250) {
            let score = DealScoreFormula.score(Self.input(price, Self.example))
            #expect(score.tier == DealScoreFormula.tier(Int(score.score)), "price \(price)")
        }
    }

    // MARK: Hot deal

    @Test("exactly 40% below the average is not a hot deal")
    func fortyPercentIsNotHot() {
        let score = DealScoreFormula.score(Self.input(6_000, Self.route(average: 10_000, deviation: 1_500)))
        #expect(score.discountBasisPoints == 4_000)
        #expect(!score.hotDeal)
    }

    @Test("40.01% below the average is a hot deal")
    func justOverFortyPercentIsHot() {
        let score = DealScoreFormula.score(Self.input(5_999, Self.route(average: 10_000, deviation: 1_500)))
        #expect(score.discountBasisPoints == 4_001)
        #expect(score.hotDeal)
    }

    // MARK: Thin history

    /// `count` consecutive days of history ending today.
    static func history(days count: Int, today: Int = 20_500) -> RouteStatistics? {
        let days = (0 ..< count).map { DailyMinimum(day: today - $0, minimum: 10_000 + Int64($0 % 3) * 500, observations: 2) }
        return RouteStatistics.compute(days, today: today)
    }

    @Test("6 days of history: NOT_ENOUGH_DATA with score 0 and no components")
    func sixDaysIsNotEnough() throws {
        let statistics = try #require(Self.history(days: 6))
        #expect(!statistics.enoughData)
        let score = DealScoreFormula.score(Self.input(5_000, statistics))
        #expect(score.tier == .notEnoughData)
        #expect(score.score == 0)
        #expect(score.components.isEmpty)
        #expect(!score.hotDeal && score.discountBasisPoints == 0)
        #expect(score.reasons == ["Not enough price history yet (6 of 7 days)"])
    }

    @Test("7 days of history are scored")
    func sevenDaysIsScored() throws {
        let statistics = try #require(Self.history(days: 7))
        #expect(statistics.enoughData)
        let score = DealScoreFormula.score(Self.input(5_000, statistics))
        #expect(score.tier != .notEnoughData)
        #expect(score.score > 0)
        #expect(score.components.count == 4)
    }

    @Test("no history at all: NOT_ENOUGH_DATA with score 0")
    func noHistory() {
        let score = DealScoreFormula.score(Self.input(5_000, nil))
        #expect(score.tier == .notEnoughData && score.score == 0 && score.components.isEmpty)
        #expect(score.reasons == ["Not enough price history yet (0 of 7 days)"])
    }

    // MARK: Components

    @Test("the four components' points sum to the score, each within its weight, the score within 0…100")
    func componentsSumToScore() {
        let carriers: [CarrierRecord?] = [nil, Self.delta, Self.hawaiian, Self.mesa]
        let routes = [Self.example, Self.route(average: 50_000, deviation: 20_000), Self.route(average: 3_000, deviation: 10)]
        for statistics in routes {
            for step in 0 ... 20 {
                let price = Int64(statistics.average90 * Double(step) / 10)
                for observations in [nil, 0, 48, 69, 500, 5_000] as [Int?] {
                    for days in [-3, 0, 10, 45, 120, 400] {
                        for carrier in carriers {
                            let score = DealScoreFormula.score(
                                Self.input(price, statistics, observations: observations, days: days, carrier: carrier)
                            )
                            #expect(score.components.map(\.factor) == [.discount, .routePopularity, .timeToDeparture, .carrierReliability])
                            #expect(score.components.map(\.maxPoints) == [70, 10, 10, 10])
                            #expect(score.components.allSatisfy { $0.points >= 0 && $0.points <= $0.maxPoints })
                            #expect(score.components.reduce(0) { $0 + $1.points } == score.score)
                            #expect((0 ... 100).contains(score.score))
                        }
                    }
                }
            }
        }
    }

    @Test("the weights are 70, 10, 10, 10 and sum to 100")
    func weights() {
        #expect(DealScoreFormula.discountWeight == 70)
        #expect(DealScoreFormula.popularityWeight + DealScoreFormula.departureWeight + DealScoreFormula.reliabilityWeight == 30)
    }

    // MARK: Worked example (docs/scoring.md)

    @Test("worked example: €66.50 on a €87.50 route, popular, 30 days out, Delta → 90, pushed, exact reasons")
    func workedExample() {
        let score = DealScoreFormula.score(Self.input(6_650, Self.example, observations: 1_137, days: 30, carrier: Self.delta))
        #expect(score.components.map(\.points) == [63, 10, 10, 7])
        #expect(score.score == 90)
        #expect(score.tier == .exceptionalPushed)
        #expect(score.discountBasisPoints == 2_400)
        #expect(!score.hotDeal)
        #expect(score.lowestInSixMonths)
        #expect(score.average90Days == Money(minorUnits: 8_750, currency: "EUR"))
        #expect(score.typicalLow == Money(minorUnits: 8_000, currency: "EUR"))
        #expect(score.typicalHigh == Money(minorUnits: 9_500, currency: "EUR"))
        #expect(score.reasons == ["24% below the 90-day average", "Lowest price in 6 months", "Typical price: €80–95"])
        #expect(score.components.map(\.reason) == [
            "24% below the 90-day average", "Very popular route", "Departs in 30 days", "Reliable carrier: 82% on time",
        ])
        #expect(score.components.map(\.input) == [0.24, 1_137, 30, 0.818])
    }

    @Test("\"Lowest price in 6 months\" only when the price is at or below the 6-month low")
    func lowestInSixMonths() {
        let atLow = DealScoreFormula.score(Self.input(6_900, Self.example))
        #expect(atLow.lowestInSixMonths)
        #expect(atLow.reasons.contains("Lowest price in 6 months"))
        let above = DealScoreFormula.score(Self.input(6_901, Self.example))
        #expect(!above.lowestInSixMonths)
        #expect(!above.reasons.contains("Lowest price in 6 months"))
        #expect(above.reasons == ["21% below the 90-day average", "Typical price: €80–95"])
    }

    @Test("the typical price is written as Money.formatted writes whole amounts, symbol or code once")
    func typicalPriceMatchesMoneyFormatting() {
        /// Money.formatted without the all-zero fraction.
        func whole(_ units: Int64, _ currency: String) -> String {
            let text = Money(minorUnits: units * Self.unit(currency), currency: currency).formatted
            guard let point = text.firstIndex(of: ".") else { return text }
            let end = text[point...].firstIndex { $0 != "." && $0 != "0" } ?? text.endIndex
            return String(text[..<point]) + text[end...]
        }
        let ranges: [(Int64, Int64)] = [(80, 95), (0, 7), (999, 1_000), (1_234, 56_789), (800, 800), (123_456, 9_876_543)]
        for currency in ["EUR", "USD", "GBP", "JPY", "KWD", "CAD", "CLF", "CHF"] {
            for (low, high) in ranges {
                let lowText = whole(low, currency)
                let highText = whole(high, currency)
                let expected: String
                if low == high {
                    expected = "Typical price: " + lowText
                } else if let symbol = Money.unambiguousSymbols[currency] {
                    expected = "Typical price: " + lowText + "–" + highText.dropFirst(symbol.count)
                } else {
                    expected = "Typical price: " + lowText.dropLast(currency.count + 1) + "–" + highText
                }
                let unit = Self.unit(currency)
                let text = DealScoreFormula.Reasons.typicalPrice(low: low * unit, high: high * unit, code: currency)
                #expect(text == expected)
            }
        }
        #expect(DealScoreFormula.Reasons.typicalPrice(low: 65_000, high: 80_000, code: "JPY") == "Typical price: ¥65,000–80,000")
        #expect(DealScoreFormula.Reasons.typicalPrice(low: 12_345, high: 15_500, code: "KWD") == "Typical price: 12–16 KWD")
        #expect(DealScoreFormula.Reasons.typicalPrice(low: 79_950, high: 90_049, code: "USD") == "Typical price: $800–900")
    }

    @Test("typical amounts round to whole units half up; the Money fields keep minor units")
    func typicalRounding() {
        var statistics = Self.example
        statistics.typicalLow = 7_949.6
        statistics.typicalHigh = 9_550.2
        let score = DealScoreFormula.score(Self.input(8_000, statistics, currency: "eur"))
        #expect(score.typicalLow == Money(minorUnits: 7_950, currency: "EUR"))
        #expect(score.typicalHigh == Money(minorUnits: 9_550, currency: "EUR"))
        #expect(score.reasons.last == "Typical price: €80–96")
    }

    // MARK: Carrier reliability

    @Test("an unknown carrier is neutral: half the reliability points, between a good and a bad carrier")
    func unknownCarrierIsNeutral() {
        let price: Int64 = 7_000
        let unknown = DealScoreFormula.score(Self.input(price, Self.example))
        let good = DealScoreFormula.score(Self.input(price, Self.example, carrier: Self.hawaiian))
        let bad = DealScoreFormula.score(Self.input(price, Self.example, carrier: Self.expressJet))
        #expect(Self.points(unknown, .carrierReliability) == 5)
        // The data's flight-weighted mean record (76.2% on time, 2.8% cancelled or diverted) is the neutral point.
        let average = DealScoreFormula.score(Self.input(price, Self.example, carrier: CarrierRecord(onTime: 0.762, cancelledOrDiverted: 0.028)))
        #expect(Self.points(average, .carrierReliability) == 5)
        #expect(unknown.components.last?.reason == "Carrier reliability unknown: neutral")
        #expect(Self.points(good, .carrierReliability) > 5)
        #expect(Self.points(bad, .carrierReliability) < 5)
        #expect(good.score > unknown.score && unknown.score > bad.score)
    }

    @Test("more cancellations and fewer on-time flights cost reliability points")
    func reliabilityOrder() {
        let price: Int64 = 7_000
        let ranked = [Self.hawaiian, Self.delta, Self.expressJet, Self.mesa].map {
            Self.points(DealScoreFormula.score(Self.input(price, Self.example, carrier: $0)), .carrierReliability)
        }
        #expect(ranked == ranked.sorted(by: >))
        #expect(ranked.first != ranked.last)
    }

    // MARK: Popularity

    @Test("popularity never falls as observations grow, and a route not in the data scores as a median route")
    func popularityMonotonic() {
        var previous = -1
        for observations in [0, 1, 5, 20, 48, 69, 102, 172, 513, 1_137, 1_569, 5_000, 100_000] {
            let points = Self.points(DealScoreFormula.score(Self.input(7_000, Self.example, observations: observations)), .routePopularity)
            #expect(points >= previous, "\(observations) observations")
            previous = points
        }
        let popular = Self.points(DealScoreFormula.score(Self.input(7_000, Self.example, observations: 1_137)), .routePopularity)
        let median = Self.points(DealScoreFormula.score(Self.input(7_000, Self.example, observations: 69)), .routePopularity)
        let rare = Self.points(DealScoreFormula.score(Self.input(7_000, Self.example, observations: 5)), .routePopularity)
        let unknown = Self.points(DealScoreFormula.score(Self.input(7_000, Self.example, observations: nil)), .routePopularity)
        #expect(popular > median && median > rare)
        #expect(unknown == median && median == 5)
    }

    // MARK: Time to departure

    @Test("time to departure rises to 3 weeks, is best from 3 to 8 weeks, then falls")
    func departureShape() {
        let points = (0 ... 365).map { days in
            Self.points(DealScoreFormula.score(Self.input(7_000, Self.example, days: days)), .timeToDeparture)
        }
        #expect(points[0] < points[21] && points[300] < points[56])
        #expect(points[21 ... 56].allSatisfy { $0 == 10 })
        for day in 1 ... 21 { #expect(points[day] >= points[day - 1], "day \(day)") }
        for day in 57 ... 365 { #expect(points[day] <= points[day - 1], "day \(day)") }
        #expect(DealScoreFormula.departureFraction(days: -5) == DealScoreFormula.departureFraction(days: 0))
    }

    // MARK: Discount

    @Test("above the average: negative discount basis points, 0 discount points, not shown")
    func aboveAverage() {
        let score = DealScoreFormula.score(
            Self.input(9_625, Self.example, observations: 100_000, days: 40, carrier: Self.hawaiian)
        )
        #expect(score.discountBasisPoints == -1_000)
        #expect(Self.points(score, .discount) == 0)
        #expect(score.tier == .notShown)
        #expect(score.reasons.first == "10% above the 90-day average")
        #expect(!score.hotDeal && !score.lowestInSixMonths)
    }

    @Test("a fare at the average reads \"At the 90-day average\" and is not shown")
    func atAverage() {
        let score = DealScoreFormula.score(Self.input(8_750, Self.example))
        #expect(score.discountBasisPoints == 0)
        #expect(score.reasons.first == "At the 90-day average")
        #expect(score.tier == .notShown)
    }

    @Test("the reason's percentage is the discount rounded to the nearest whole percent")
    func reasonPercentRounds() {
        let route = Self.route(average: 10_000, deviation: 1_500)
        let cases: [(Int64, String)] = [
            (7_640, "24% below the 90-day average"), // 23.6%
            (7_660, "23% below the 90-day average"), // 23.4%
            (7_650, "24% below the 90-day average"), // 23.5%: half up
            (10_450, "5% above the 90-day average"), // −4.5%
            (9_960, "At the 90-day average"), // 0.4%
        ]
        for (price, reason) in cases {
            #expect(DealScoreFormula.score(Self.input(price, route)).reasons.first == reason, "price \(price)")
        }
    }

    @Test("a lower price never scores less")
    func discountMonotonic() {
        var previous = -1
        for price in stride(from: Int64(12_000), through: 0, by: -50) {
            let score = Int(DealScoreFormula.score(Self.input(price, Self.example)).score)
            #expect(score >= previous, "price \(price)")
            previous = score
        }
    }

    @Test("the same discount is worth less on a volatile route than on a stable one")
    func dispersionTempersDiscount() {
        let stable = Self.route(average: 10_000, deviation: 800)
        let volatile = Self.route(average: 10_000, deviation: 3_500)
        for price: Int64 in [8_500, 7_500, 6_500] {
            let onStable = DealScoreFormula.score(Self.input(price, stable))
            let onVolatile = DealScoreFormula.score(Self.input(price, volatile))
            #expect(onStable.discountBasisPoints == onVolatile.discountBasisPoints)
            #expect(Self.points(onVolatile, .discount) < Self.points(onStable, .discount), "price \(price)")
        }
    }

    @Test("a route whose price never moves needs a real drop: the deviation is at least 4% of the average")
    func dispersionFloor() {
        let flat = Self.route(average: 10_000, deviation: 0)
        let oneCent = DealScoreFormula.score(Self.input(9_999, flat))
        #expect(Self.points(oneCent, .discount) == 0)
        #expect(oneCent.tier == .notShown)
    }

    // MARK: Helpers

    /// Minor units per whole unit of a currency.
    static func unit(_ currency: String) -> Int64 {
        var unit: Int64 = 1
        for _ in 0 ..< Money.exponent(of: currency) { unit *= 10 }
        return unit
    }
}

/// RouteStatistics.compute: the windows, averages, spread, percentiles and the 6-month low.
@Suite("Route statistics")
struct RouteStatisticsTests {
    static let today = 20_500

    /// A daily minimum `age` days before today.
    static func day(_ age: Int, _ minimum: Int64, observations: Int = 1) -> DailyMinimum {
        DailyMinimum(day: today - age, minimum: minimum, observations: observations)
    }

    @Test("averages of the last 30 and 90 days, and the population standard deviation")
    func averagesAndDeviation() throws {
        // 90-day window: 100, 200, 300, 400 (ages 0, 29, 30, 89); 30-day window: 100, 200.
        let statistics = try #require(RouteStatistics.compute(
            [Self.day(30, 300), Self.day(0, 100), Self.day(89, 400), Self.day(29, 200)], today: Self.today
        ))
        #expect(statistics.average90 == 250)
        #expect(statistics.average30 == 150)
        #expect(statistics.samples90 == 4 && statistics.samples30 == 2)
        #expect(statistics.daysOfHistory == 4)
        // Population: sqrt(((150² + 50²) · 2) / 4) = sqrt(12,500).
        #expect(abs(statistics.standardDeviation90 - 12_500.0.squareRoot()) < 1e-9)
    }

    @Test("typical range: 25th and 75th percentiles by linear interpolation")
    func percentiles() throws {
        // Sorted 100, 200, 300, 400, 1000: rank 1 → 200, rank 3 → 400.
        let five = try #require(RouteStatistics.compute(
            [1_000, 300, 100, 400, 200].enumerated().map { Self.day($0.offset, $0.element) }, today: Self.today
        ))
        #expect(five.typicalLow == 200 && five.typicalHigh == 400)
        // Sorted 100, 200, 300, 400: rank 0.75 → 175, rank 2.25 → 325.
        let four = try #require(RouteStatistics.compute(
            [400, 100, 300, 200].enumerated().map { Self.day($0.offset, $0.element) }, today: Self.today
        ))
        #expect(four.typicalLow == 175 && four.typicalHigh == 325)
        #expect(RouteStatistics.percentile([7], 0.25) == 7)
        #expect(RouteStatistics.percentile([], 0.5) == 0)
    }

    @Test("the 6-month low looks back 183 days, beyond the 90-day window, and keeps the most recent day of a tie")
    func sixMonthLow() throws {
        let statistics = try #require(RouteStatistics.compute(
            [Self.day(0, 500), Self.day(150, 90), Self.day(182, 90), Self.day(183, 10), Self.day(10, 400)], today: Self.today
        ))
        #expect(statistics.lowestSixMonths == 90)
        #expect(statistics.lowestSixMonthsDay == Self.today - 150)
        #expect(statistics.samples90 == 2)
        #expect(statistics.average90 == 450)
    }

    @Test("days after today are ignored")
    func futureDaysIgnored() throws {
        let statistics = try #require(RouteStatistics.compute(
            [Self.day(-1, 1), Self.day(-30, 5), Self.day(0, 300), Self.day(1, 100)], today: Self.today
        ))
        #expect(statistics.daysOfHistory == 2)
        #expect(statistics.average90 == 200)
        #expect(statistics.lowestSixMonths == 100)
    }

    @Test("days older than a window are left out of it")
    func windowEdges() throws {
        let statistics = try #require(RouteStatistics.compute(
            [Self.day(29, 100), Self.day(30, 200), Self.day(89, 300), Self.day(90, 400), Self.day(182, 500)], today: Self.today
        ))
        #expect(statistics.samples30 == 1 && statistics.average30 == 100)
        #expect(statistics.samples90 == 3 && statistics.average90 == 200)
        #expect(statistics.lowestSixMonths == 100)
    }

    @Test("entries of the same day count as one day with the lowest minimum")
    func sameDayMerged() throws {
        let statistics = try #require(RouteStatistics.compute(
            [Self.day(3, 300), Self.day(3, 200), Self.day(5, 600)], today: Self.today
        ))
        #expect(statistics.daysOfHistory == 2)
        #expect(statistics.average90 == 400)
    }

    @Test("nil when there is no day at all, or none in the last 6 months")
    func nilWhenEmpty() {
        #expect(RouteStatistics.compute([], today: Self.today) == nil)
        #expect(RouteStatistics.compute([Self.day(183, 100), Self.day(-2, 100)], today: Self.today) == nil)
    }

    @Test("history only older than 90 days: no 90-day figures, not enough data")
    func onlyOldHistory() throws {
        let statistics = try #require(RouteStatistics.compute([Self.day(120, 100), Self.day(100, 80)], today: Self.today))
        #expect(statistics.daysOfHistory == 0 && !statistics.enoughData)
        #expect(statistics.average30 == nil && statistics.average90 == 0)
        #expect(statistics.lowestSixMonths == 80)
    }
}
