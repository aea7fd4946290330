/// The daily minimums of the routes being scored, kept in memory so scoring
/// a fare does not read its history back from SQLite each time: loaded from
/// the table on first use, then updated with each fold, and the statistics
/// of a route recomputed only when a fold changed its history (a new day or
/// a lower minimum). Bounded: past `maximumRoutes` it starts over empty.
/// Owned by ``ScoringService`` (actor state); cleared when a transaction
/// that folded into it rolls back.
struct HistoryCache {
    /// One route, cabin, departure month and currency.
    struct Key: Hashable {
        var origin: String
        var destination: String
        var cabin: Int
        var departureMonth: Int
        var currency: String
    }

    private struct Entry {
        /// Ascending by day.
        var days: [DailyMinimum]
        /// The statistics for `statisticsDay`, while the days are unchanged.
        var statistics: RouteStatistics??
        var statisticsDay: Int
        /// The route's popularity in the reference data, looked up once.
        var observations: Int??
    }

    private var entries: [Key: Entry] = [:]
    let maximumRoutes: Int

    init(maximumRoutes: Int = 50_000) { self.maximumRoutes = maximumRoutes }

    /// Whether `key` is loaded.
    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// Loads `key`'s days (from the table).
    mutating func load(_ key: Key, days: [DailyMinimum]) {
        if entries.count >= maximumRoutes { entries.removeAll(keepingCapacity: true) }
        entries[key] = Entry(days: days.sorted { $0.day < $1.day }, statistics: nil, statisticsDay: 0, observations: nil)
    }

    /// The statistics of a loaded `key` as of `today`, computed once per change.
    mutating func statistics(_ key: Key, today: Int) -> RouteStatistics? {
        guard var entry = entries[key] else { return nil }
        if let cached = entry.statistics, entry.statisticsDay == today { return cached }
        let statistics = RouteStatistics.compute(entry.days, today: today)
        entry.statistics = .some(statistics)
        entry.statisticsDay = today
        entries[key] = entry
        return statistics
    }

    /// The route's observation count in the reference data, from `lookUp` the first time.
    mutating func observations(_ key: Key, _ lookUp: () -> Int?) -> Int? {
        if let cached = entries[key]?.observations { return cached }
        let value = lookUp()
        entries[key]?.observations = .some(value)
        return value
    }

    /// Folds one price into a loaded `key`'s day, as the table's upsert does.
    mutating func fold(_ key: Key, day: Int, price: Int64) {
        guard var entry = entries[key] else { return }
        if let index = entry.days.lastIndex(where: { $0.day == day }) {
            entry.days[index].observations += 1
            if price < entry.days[index].minimum {
                entry.days[index].minimum = price
                entry.statistics = nil
            }
        } else {
            entry.days.append(DailyMinimum(day: day, minimum: price, observations: 1))
            entry.days.sort { $0.day < $1.day }
            entry.statistics = nil
        }
        entries[key] = entry
    }

    /// Forgets everything (after a rolled-back transaction).
    mutating func clear() { entries.removeAll() }
}
