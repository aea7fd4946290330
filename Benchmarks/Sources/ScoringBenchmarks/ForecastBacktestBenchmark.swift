import BenchmarkHarness
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import ScoringService

// Issue #59: the nightly buy-or-wait backtest over 10,000 routes × 180 days
// of daily minimums finishes in ≤ 60 s, beside a reference measured in the
// same run: one pass reading the same rows (the same query, summing them).

/// Writes `routes` series of `days` daily minimums each (one cabin, one
/// departure month per route, in euros) into the scoring database: a
/// random walk with daily noise, so the model gives rise, fall and no
/// signal. Generated, not observed: only the time is reported.
func writeBacktestHistory(_ database: ServiceDatabase, routes: Int, days: Int, today: Int) async throws {
    var generator = SystemRandomNumberGenerator()
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    func code(_ number: Int) -> String { String([letters[number / 676 % 26], letters[number / 26 % 26], letters[number % 26]]) }
    for batch in stride(from: 0, to: routes, by: 500) {
        var rows: [(String, String, Int, Int, Int64)] = []
        for route in batch ..< min(routes, batch + 500) {
            let departure = CalendarDate(daysSinceEpoch: today + 20 + route % 160)
            let month = departure.year * 100 + departure.month
            var level = Double.random(in: 5_000 ... 90_000, using: &generator)
            for day in today - days + 1 ... today {
                level *= 1 + Double.random(in: -0.02 ... 0.02, using: &generator)
                let noise = 1 + Double.random(in: -0.12 ... 0.12, using: &generator)
                rows.append((code(route / 100), code(1_000 + route % 100), month, day, Int64(level * noise)))
            }
        }
        try await database.writer.write { [rows] db in
            let statement = try db.cachedStatement(sql: "INSERT INTO daily_minimum (origin, destination, cabin, departureMonth, day, currency, minimum, observations) VALUES (?, ?, 1, ?, ?, 'EUR', ?, 1)")
            for row in rows { try statement.execute(arguments: [row.0, row.1, row.2, row.3, row.4]) }
        }
    }
}

func forecastBacktest(directory: String) async throws {
    let backtestDirectory = directory + "-backtest"
    try FileManager.default.createDirectory(atPath: backtestDirectory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: backtestDirectory) }
    let database = try openDatabase(backtestDirectory)
    let (routes, days) = (10_000, 180)
    let today = CalendarDate.of(Date(), in: .gmt).daysSinceEpoch
    let writeStart = ContinuousClock.now
    try await writeBacktestHistory(database, routes: routes, days: days, today: today)
    print("forecast backtest: \(routes) routes × \(days) days = \(routes * days) generated daily minimums written in \(format(nanoseconds(ContinuousClock.now - writeStart) / 1e9)) s")
    let model = try ForecastModel.bundled()
    var times: [Double] = [], references: [Double] = []
    for round in 1 ... 3 {
        let referenceStart = ContinuousClock.now
        let (rows, sum) = try await database.writer.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT origin, destination, cabin, departureMonth, day, currency, minimum FROM daily_minimum
                ORDER BY origin, destination, cabin, departureMonth, day, currency
                """)
            var (rows, sum) = (0, Int64(0))
            let cursor = try Row.fetchCursor(statement)
            while let row = try cursor.next() {
                let origin: String = row[0], currency: String = row[5], minimum: Int64 = row[6]
                rows += 1
                sum &+= minimum &+ Int64(origin.utf8.count + currency.utf8.count)
            }
            return (rows, sum)
        }
        let reference = nanoseconds(ContinuousClock.now - referenceStart) / 1e9
        let start = ContinuousClock.now
        let backtest = try await database.writer.read { db in
            var backtest = ForecastBacktest(model: model, firstDay: today - days + 1, lastDay: today)
            try backtest.addEverySeries(in: db)
            return backtest
        }
        let seconds = nanoseconds(ContinuousClock.now - start) / 1e9
        blackHole((rows, sum))
        times.append(seconds)
        references.append(reference)
        print("[\(round)] forecast backtest, \(rows) daily minimums (\(routes) routes × \(days) days): \(format(seconds, decimals: 2)) s, \(backtest.overall.forecasts) forecasts scored, \(backtest.noSignal) without a signal | reference: one pass reading the same rows \(format(reference, decimals: 2)) s | ratio \(format(seconds / reference))x (target <= 60 s: \(seconds <= 60 ? "meets" : "MISSES"))")
    }
    print("forecast backtest, median of 3: \(format(median(times), decimals: 2)) s beside the reading pass's \(format(median(references), decimals: 2)) s: \(format(median(times) / median(references)))x")
}
