public import GRDB

extension ForecastBacktest {
    /// Runs the backtest over every series in `daily_minimum` in one pass
    /// (the rows in primary-key order: route, cabin, departure month, day,
    /// currency), each series held in memory only while it is scored.
    public mutating func addEverySeries(in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            SELECT origin, destination, cabin, departureMonth, day, currency, minimum, simulated FROM daily_minimum
            ORDER BY origin, destination, cabin, departureMonth, day, currency
            """)
        let firstNeeded = firstDay - ForecastModel.trailingDays
        var group: SeriesGroup?
        var seriesByCurrency: [String: [DailyMinimum]] = [:]
        var simulatedCurrencies: Set<String> = []
        func flush() {
            guard let group else { return }
            for currency in seriesByCurrency.keys.sorted() {
                add(seriesByCurrency[currency] ?? [], route: group.route, departureMonth: group.month, simulated: simulatedCurrencies.contains(currency))
            }
            seriesByCurrency.removeAll(keepingCapacity: true)
            simulatedCurrencies.removeAll(keepingCapacity: true)
        }
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            let day: Int = row[4]
            guard day >= firstNeeded, day <= lastDay else { continue }
            let key = SeriesGroup(route: RouteCabin(origin: row[0], destination: row[1], cabin: row[2]), month: row[3])
            if key != group {
                flush()
                group = key
            }
            let currency: String = row[5]
            seriesByCurrency[currency, default: []].append(DailyMinimum(day: day, minimum: row[6], observations: 1))
            if row[7] as Bool { simulatedCurrencies.insert(currency) }
        }
        flush()
    }

    /// A route, cabin and departure month: the rows of its series, in every currency, are adjacent.
    private struct SeriesGroup: Equatable {
        var route: RouteCabin
        var month: Int
    }
}
