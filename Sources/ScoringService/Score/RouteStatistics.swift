/// One day's minimum observed per-person price on a route (minor units).
public struct DailyMinimum: Sendable, Equatable {
    /// The day the prices were observed: days since 1970-01-01, UTC.
    public var day: Int
    /// The lowest per-person price observed that day, in minor units.
    public var minimum: Int64
    /// How many fares were observed that day.
    public var observations: Int

    /// One day's minimum.
    public init(day: Int, minimum: Int64, observations: Int) {
        self.day = day
        self.minimum = minimum
        self.observations = observations
    }
}

/// What a route's history says, for scoring and the PriceHistory answer (SPEC §2).
///
/// Windows end at `today` inclusive: "the last 90 days" are `today − 89 … today`,
/// the last 30 days `today − 29 … today`, the last 6 months (183 days)
/// `today − 182 … today`. Several entries for the same day (histories of
/// several departure months combined) count as one day: its minimum is the
/// lowest of them.
public struct RouteStatistics: Sendable, Equatable {
    /// Distinct days with data in the last 90 days.
    public var daysOfHistory: Int
    /// Mean of the daily minimums of the last 30 days; nil when there are none.
    public var average30: Double?
    /// Mean of the daily minimums of the last 90 days (0 when there are none).
    public var average90: Double
    /// Population standard deviation of the last 90 days' daily minimums.
    public var standardDeviation90: Double
    /// 25th percentile (linear interpolation) of the 90-day daily minimums.
    public var typicalLow: Double
    /// 75th percentile (linear interpolation) of the 90-day daily minimums.
    public var typicalHigh: Double
    /// The lowest daily minimum in the last 183 days.
    public var lowestSixMonths: Int64
    /// The day of `lowestSixMonths` (the most recent one when several days tie).
    public var lowestSixMonthsDay: Int
    /// How many daily minimums are behind the 90-day figures.
    public var samples90: Int
    /// How many daily minimums are behind `average30`.
    public var samples30: Int

    /// Fewer days of history than this: "not enough data yet", never a score.
    static let minimumDays = 7
    /// Length of the long window, in days.
    static let longWindowDays = 90
    /// Length of the short window, in days.
    static let shortWindowDays = 30
    /// Length of the "6 months" window, in days.
    static let sixMonthsDays = 183

    /// Whether there is enough history to score a fare (at least `minimumDays` days).
    public var enoughData: Bool { daysOfHistory >= Self.minimumDays }

    /// From daily minimums (any order, any age); `today` is days since epoch; days after today are ignored.
    ///
    /// Returns nil when no day falls in the last 183 days. With days in the
    /// last 6 months but none in the last 90, the 90-day figures are 0 and
    /// `daysOfHistory` is 0 (not enough data).
    public static func compute(_ days: [DailyMinimum], today: Int) -> RouteStatistics? {
        let sixMonthsStart = today - (sixMonthsDays - 1)
        let longStart = today - (longWindowDays - 1)
        let shortStart = today - (shortWindowDays - 1)

        var recent = days.filter { $0.day >= sixMonthsStart && $0.day <= today }
        guard !recent.isEmpty else { return nil }
        recent.sort { $0.day < $1.day }

        var lowest = Int64.max
        var lowestDay = today
        var long: [Double] = []
        long.reserveCapacity(min(recent.count, longWindowDays))
        var shortSum = 0.0
        var shortCount = 0
        var index = 0
        while index < recent.count {
            // One value per day: the lowest of that day's entries.
            let day = recent[index].day
            var minimum = recent[index].minimum
            index += 1
            while index < recent.count, recent[index].day == day {
                minimum = Swift.min(minimum, recent[index].minimum)
                index += 1
            }
            if minimum <= lowest {
                lowest = minimum
                lowestDay = day
            }
            if day >= longStart { long.append(Double(minimum)) }
            if day >= shortStart {
                shortSum += Double(minimum)
                shortCount += 1
            }
        }

        var average90 = 0.0
        var deviation = 0.0
        var low = 0.0
        var high = 0.0
        if !long.isEmpty {
            let count = Double(long.count)
            average90 = long.reduce(0, +) / count
            let squares = long.reduce(0.0) { sum, value in sum + (value - average90) * (value - average90) }
            deviation = (squares / count).squareRoot()
            long.sort()
            low = percentile(long, 0.25)
            high = percentile(long, 0.75)
        }
        return RouteStatistics(
            daysOfHistory: long.count,
            average30: shortCount > 0 ? shortSum / Double(shortCount) : nil,
            average90: average90,
            standardDeviation90: deviation,
            typicalLow: low,
            typicalHigh: high,
            lowestSixMonths: lowest,
            lowestSixMonthsDay: lowestDay,
            samples90: long.count,
            samples30: shortCount
        )
    }

    /// The `fraction` percentile (0…1) of ascending `sorted` values by linear
    /// interpolation between closest ranks: rank `h = (n − 1) · fraction`,
    /// value `x[⌊h⌋] + (h − ⌊h⌋) · (x[⌊h⌋ + 1] − x[⌊h⌋])` (Hyndman & Fan type 7,
    /// as numpy and spreadsheets compute it). 0 for no values.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard let first = sorted.first else { return 0 }
        guard sorted.count > 1 else { return first }
        let rank = Double(sorted.count - 1) * Swift.min(Swift.max(fraction, 0), 1)
        let lower = Int(rank.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        return sorted[lower] + (rank - Double(lower)) * (sorted[upper] - sorted[lower])
    }
}
