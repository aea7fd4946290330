import FareLensMessages
import Foundation

/// Analytics reports as `analytics report` prints them: a table whose
/// columns are the report's own labels, the total row last, or JSON whose
/// absent values are null.
enum AnalyticsOutput {
    /// Command-line names of the report kinds and the header of their dimension column.
    static let kinds: [(name: String, kind: ReportKind, dimension: String)] = [
        ("searches", .searches, "PURPOSE"), ("quota", .quotaUse, "PROVIDER"), ("alerts", .alerts, "DECISION"),
        ("clicks", .clickThrough, "PLACEMENT"), ("conversions", .bookingConversion, "PLACEMENT"), ("trials", .trialConversion, "TRIAL WEEK"),
    ]

    /// The table, with a DAY column when any row has a day, LIMIT for quota and COMMISSION for conversions.
    static func table(_ response: AnalyticsReportResponse) -> String {
        let entry = kinds.first { $0.kind == response.kind }
        let daily = response.rows.contains(where: \.hasDay)
        var header: [String] = daily ? ["DAY"] : []
        header += [entry?.dimension ?? "DIMENSION", response.countLabel.uppercased(), response.hitsLabel.uppercased(), "RATE"]
        if response.kind == .quotaUse { header.append("LIMIT") }
        if response.kind == .bookingConversion { header.append("COMMISSION") }
        var rows = [header]
        for row in response.rows {
            let json = RowJSON(row)
            var cells: [String] = daily ? [json.day ?? ""] : []
            cells += [json.total ? "TOTAL" : json.dimension, "\(row.count)", "\(row.hits)", json.rate]
            if response.kind == .quotaUse { cells.append("\(row.limit)") }
            if response.kind == .bookingConversion { cells.append(json.commission ?? "-") }
            rows.append(cells.map(TextTable.visible))  // dimensions come from clients (placements): no control characters to the terminal
        }
        return render(rows, numericFrom: daily ? 2 : 1)
    }

    /// Left-aligned text columns, right-aligned numbers (columns from `numericFrom` on).
    private static func render(_ rows: [[String]], numericFrom: Int) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column >= numericFrom ? pad + cell : (column == row.count - 1 ? cell : cell + pad)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// `12.50%` from basis points.
    static func percent(_ basisPoints: Int32) -> String {
        String(format: "%d.%02d%%", basisPoints / 100, basisPoints % 100)
    }

    struct ReportJSON: Encodable {
        let report: String
        let countLabel: String
        let hitsLabel: String
        let rows: [RowJSON]

        init(_ response: AnalyticsReportResponse) {
            report = AnalyticsOutput.kinds.first { $0.kind == response.kind }?.name ?? "\(response.kind)"
            countLabel = response.countLabel
            hitsLabel = response.hitsLabel
            rows = response.rows.map(RowJSON.init)
        }
    }

    struct RowJSON: Encodable {
        let day: String?
        let dimension: String
        let total: Bool
        let count: Int64
        let hits: Int64
        let rateBasisPoints: Int32
        let rate: String
        let limit: Int64?
        let commission: String?
        let commissionMinorUnits: Int64?
        let currency: String?

        enum CodingKeys: String, CodingKey {
            case day, dimension, total, count, hits, rateBasisPoints, rate, limit, commission, commissionMinorUnits, currency
        }

        init(_ row: ReportRow) {
            day = row.hasDay ? CalendarDate(row.day)?.description : nil
            dimension = row.dimension
            total = row.dimension.isEmpty && !row.hasDay
            count = row.count
            hits = row.hits
            rateBasisPoints = row.rateBasisPoints
            rate = AnalyticsOutput.percent(row.rateBasisPoints)
            limit = row.limit > 0 ? row.limit : nil
            commission = row.hasAmount ? row.amount.formatted : nil
            commissionMinorUnits = row.hasAmount ? row.amount.minorUnits : nil
            currency = row.hasAmount ? row.amount.currency : nil
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(day, forKey: .day)
            try container.encode(dimension, forKey: .dimension)
            try container.encode(total, forKey: .total)
            try container.encode(count, forKey: .count)
            try container.encode(hits, forKey: .hits)
            try container.encode(rateBasisPoints, forKey: .rateBasisPoints)
            try container.encode(rate, forKey: .rate)
            try container.encode(limit, forKey: .limit)
            try container.encode(commission, forKey: .commission)
            try container.encode(commissionMinorUnits, forKey: .commissionMinorUnits)
            try container.encode(currency, forKey: .currency)
        }
    }
}
