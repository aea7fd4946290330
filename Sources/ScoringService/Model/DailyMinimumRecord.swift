import Foundation
import FareLensStore
import GRDB

/// One day's minimum observed per-person price of a route, cabin and
/// departure month, as the `daily_minimum` table stores it (migration
/// `scoring-001-history`). Observed fares are folded in as they arrive (the
/// raw fares are never kept); days older than ``retentionDays`` are deleted,
/// which no answer reads.
struct DailyMinimumRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "daily_minimum"

    /// The longest window an answer reads (the lowest price in 6 months).
    static let retentionDays = 183

    var origin: String
    var destination: String
    var cabin: Int
    /// `yyyymm` of the departure.
    var departureMonth: Int
    /// The observation day, days since 1970-01-01 (UTC).
    var day: Int
    var currency: String
    var minimum: Int64
    var observations: Int
    /// Whether any of the day's fares came from the simulated market
    /// (migration `scoring-003-simulated-days`; false for days before it).
    var simulated: Bool

    /// Folds one per-person price into the day's row.
    static func fold(
        origin: String, destination: String, cabin: Int, departureMonth: Int, day: Int, currency: String, price: Int64, simulated: Bool,
        in db: Database
    ) throws {
        // A cached statement bound through SQLite's C interface: ingest folds every observed fare (issue target 100 k/s).
        try db.cachedStatement(sql: """
            INSERT INTO daily_minimum (origin, destination, cabin, departureMonth, day, currency, minimum, observations, simulated)
            VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
            ON CONFLICT (origin, destination, cabin, departureMonth, day, currency)
            DO UPDATE SET minimum = MIN(minimum, excluded.minimum), observations = observations + 1, simulated = MAX(simulated, excluded.simulated)
            """).executeBinding { values in
                values.bind(origin)
                values.bind(destination)
                values.bind(cabin)
                values.bind(departureMonth)
                values.bind(day)
                values.bind(currency)
                values.bind(price)
                values.bind(simulated)
            }
    }

    /// Daily minimums since `firstDay` for a route, cabin and currency: one
    /// departure month, or (month 0) all months combined (the lowest per day).
    static func days(
        origin: String, destination: String, cabin: Int, departureMonth: Int, currency: String, since firstDay: Int, in db: Database
    ) throws -> [DailyMinimum] {
        let monthFilter = departureMonth == 0 ? "" : "AND departureMonth = ?"
        var arguments: StatementArguments = [origin, destination, cabin, currency, firstDay]
        if departureMonth != 0 { arguments += [departureMonth] }
        let statement = try db.cachedStatement(sql: """
            SELECT day, MIN(minimum), SUM(observations) FROM daily_minimum
            WHERE origin = ? AND destination = ? AND cabin = ? AND currency = ? AND day >= ? \(monthFilter)
            GROUP BY day ORDER BY day
            """)
        return try Row.fetchAll(statement, arguments: arguments).map { row in
            DailyMinimum(day: row[0], minimum: row[1], observations: row[2])
        }
    }

    /// The currency with the most days of history for a route and cabin ("" when none).
    static func mainCurrency(origin: String, destination: String, cabin: Int, in db: Database) throws -> String {
        try String.fetchOne(db, sql: """
            SELECT currency FROM daily_minimum WHERE origin = ? AND destination = ? AND cabin = ?
            GROUP BY currency ORDER BY COUNT(*) DESC, currency LIMIT 1
            """, arguments: [origin, destination, cabin]) ?? ""
    }

    /// Whether any day of a route's, cabin's, currency's and departure month's history came from the simulated market.
    static func anySimulated(origin: String, destination: String, cabin: Int, departureMonth: Int, currency: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM daily_minimum
            WHERE origin = ? AND destination = ? AND cabin = ? AND departureMonth = ? AND currency = ? AND simulated)
            """, arguments: [origin, destination, cabin, departureMonth, currency]) ?? false
    }

    /// Migration `scoring-003-simulated-days`: which days came from the simulated market.
    static func migrateSimulated(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "simulated", .boolean).notNull().defaults(to: false)
        }
    }

    /// The table, created by migration `scoring-001-history`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("cabin", .integer).notNull()
            table.column("departureMonth", .integer).notNull()
            table.column("day", .integer).notNull()
            table.column("currency", .text).notNull()
            table.column("minimum", .integer).notNull()
            table.column("observations", .integer).notNull()
            table.primaryKey(["origin", "destination", "cabin", "departureMonth", "day", "currency"])
        }
        try db.create(index: "daily_minimum_on_day", on: databaseTableName, columns: ["day"])
    }
}
