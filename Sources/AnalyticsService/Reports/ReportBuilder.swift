import FareLensMessages

/// Report rows from roll-up rows: one per dimension (or per day and
/// dimension with `daily`), sorted by day then dimension, and a total row
/// last. Pure, so tests can check it on hand-made roll-ups.
enum ReportBuilder {
    private struct Key: Hashable, Comparable {
        let day: Int?
        let dimension: String
        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.day ?? 0, lhs.dimension) < (rhs.day ?? 0, rhs.dimension) }
    }

    private struct Totals {
        var count: Int64 = 0
        var hits: Int64 = 0
        /// Commission by currency.
        var amounts: [String: Int64] = [:]
        /// The quota limit of the latest day that reported one.
        var limitDay = Int.min
        var limit: Int64 = 0

        mutating func add(_ record: RollupRecord) {
            count += record.count
            hits += record.hits
            if !record.currency.isEmpty { amounts[record.currency, default: 0] += record.amountMinor }
            if record.quotaLimit > 0, record.day >= limitDay {
                limitDay = record.day
                limit = record.quotaLimit
            }
        }

        var isEmpty: Bool { count == 0 && hits == 0 && limit == 0 && amounts.values.allSatisfy { $0 == 0 } }
    }

    /// The rows of a report over `records` (already limited to its days).
    static func rows(_ records: [RollupRecord], daily: Bool) -> [ReportRow] {
        var groups: [Key: Totals] = [:]
        for record in records {
            groups[Key(day: daily ? record.day : nil, dimension: record.dimension), default: Totals()].add(record)
        }
        var rows: [ReportRow] = []
        var total = Totals()
        var totalLimit: Int64 = 0
        for (key, totals) in groups.sorted(by: { $0.key < $1.key }) where !totals.isEmpty {
            rows.append(row(key.day, key.dimension, totals, limit: totals.limit))
            total.count += totals.count
            total.hits += totals.hits
            for (currency, amount) in totals.amounts { total.amounts[currency, default: 0] += amount }
            if !daily { totalLimit += totals.limit }
        }
        if daily {
            // The total's limit: per dimension, its latest day's; summed.
            var latest: [String: Totals] = [:]
            for record in records { latest[record.dimension, default: Totals()].add(record) }
            totalLimit = latest.values.reduce(0) { $0 + $1.limit }
        }
        rows.append(row(nil, "", total, limit: totalLimit))
        return rows
    }

    private static func row(_ day: Int?, _ dimension: String, _ totals: Totals, limit: Int64) -> ReportRow {
        var row = ReportRow()
        if let day { row.day = CalendarDate(daysSinceEpoch: day).message }
        row.dimension = dimension
        row.count = totals.count
        row.hits = totals.hits
        row.rateBasisPoints = rate(totals.hits, of: totals.count)
        row.limit = limit
        if totals.amounts.count == 1, let (currency, amount) = totals.amounts.first {
            row.amount = Money(minorUnits: amount, currency: currency)
        }
        return row
    }

    /// `hits / count` in basis points, rounded half up; 0 when count is 0.
    static func rate(_ hits: Int64, of count: Int64) -> Int32 {
        guard count > 0 else { return 0 }
        return Int32(clamping: (hits * 10_000 + count / 2) / count)
    }
}
