import GRDB

/// One row of the daily roll-ups, as the `daily_rollup` table keeps them
/// (migration `analytics-001-events`), for good: per report, UTC day,
/// dimension (and currency, for commissions) the two counts a report shows.
/// No user id, no pseudonym — deleting a user's data leaves these as they
/// are. Every report reads only this table, so it stays right after the raw
/// events of its days are purged.
struct RollupRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "daily_rollup"

    /// ``RollupReport`` raw value.
    var report: String
    /// Days since 1970-01-01, UTC.
    var day: Int
    var dimension: String
    /// Commission currency for `conversions` bookings; "" otherwise.
    var currency: String
    var count: Int64
    var hits: Int64
    /// `conversions`: commission in minor units of `currency`.
    var amountMinor: Int64
    /// `quota`: the provider's monthly quota as last reported that day; 0 when unknown.
    var quotaLimit: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("report", .text).notNull()
            table.column("day", .integer).notNull()
            table.column("dimension", .text).notNull()
            table.column("currency", .text).notNull()
            table.column("count", .integer).notNull()
            table.column("hits", .integer).notNull()
            table.column("amountMinor", .integer).notNull()
            table.column("quotaLimit", .integer).notNull()
            table.primaryKey(["report", "day", "dimension", "currency"])
        }
    }
}

/// What each roll-up row counts (the reports of `ReportKind`, plus `events`).
enum RollupReport: String, Sendable, CaseIterable {
    /// dimension: search purpose; count: searches; hits: cache hits.
    case searches
    /// dimension: provider; count: calls; hits: successful calls; quotaLimit.
    case quota
    /// dimension: decision; day: the decision's; count: alerts; hits: opened.
    case alerts
    /// dimension: placement; count: deals viewed; hits: affiliate clicks.
    case clicks
    /// dimension: placement; count: affiliate clicks (currency ""); hits and
    /// amountMinor: bookings and commission by booking day (per currency).
    case conversions
    /// dimension: ISO week of the trial start; day: the start; count: trials; hits: became Pro.
    case trials
    /// dimension: topic, or `client.<kind>`; count: events heard (no report yet).
    case events
}

/// Roll-up changes gathered during one transaction and written at its end,
/// one upsert per row touched (a batch of 512 observed fares is one row).
struct RollupBatch {
    struct Key: Hashable {
        let report: RollupReport
        let day: Int
        let dimension: String
        let currency: String
    }

    struct Delta {
        var count: Int64 = 0
        var hits: Int64 = 0
        var amountMinor: Int64 = 0
        var quotaLimit: Int64 = 0
    }

    private(set) var deltas: [Key: Delta] = [:]

    /// Adds to a row (negative amounts undo an earlier addition); a positive
    /// `quotaLimit` replaces the row's.
    mutating func add(
        _ report: RollupReport, day: Int, _ dimension: String, currency: String = "",
        count: Int64 = 0, hits: Int64 = 0, amountMinor: Int64 = 0, quotaLimit: Int64 = 0
    ) {
        let key = Key(report: report, day: day, dimension: dimension, currency: currency)
        var delta = deltas[key] ?? Delta()
        delta.count += count
        delta.hits += hits
        delta.amountMinor += amountMinor
        if quotaLimit > 0 { delta.quotaLimit = quotaLimit }
        deltas[key] = delta
    }

    /// Writes every change and forgets them.
    mutating func write(_ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO daily_rollup (report, day, dimension, currency, count, hits, amountMinor, quotaLimit)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (report, day, dimension, currency) DO UPDATE SET
              count = count + excluded.count, hits = hits + excluded.hits, amountMinor = amountMinor + excluded.amountMinor,
              quotaLimit = CASE WHEN excluded.quotaLimit > 0 THEN excluded.quotaLimit ELSE quotaLimit END
            """)
        for (key, delta) in deltas {
            try statement.execute(arguments: [
                key.report.rawValue, key.day, key.dimension, key.currency, delta.count, delta.hits, delta.amountMinor, delta.quotaLimit,
            ])
        }
        deltas = [:]
    }
}
