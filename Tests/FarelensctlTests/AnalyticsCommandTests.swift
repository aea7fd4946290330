import FareLensMessages
import Foundation
import Testing
@testable import farelensctl

private func row(_ day: String?, _ dimension: String, _ count: Int64, _ hits: Int64, _ rate: Int32, limit: Int64 = 0, amount: Money? = nil) -> ReportRow {
    var row = ReportRow()
    if let day { row.day = CalendarDate(iso: day)!.message }
    row.dimension = dimension
    row.count = count
    row.hits = hits
    row.rateBasisPoints = rate
    row.limit = limit
    if let amount { row.amount = amount }
    return row
}

@Suite("analytics command")
struct AnalyticsCommandTests {
    @Test("report names map to kinds, dates parse as UTC days, and bad names, days and ranges are refused naming the option")
    func parsing() throws {
        let request = try AnalyticsCommand.Report.parse(["conversions", "--from", "2026-09-01", "--to", "2026-09-30", "--daily"]).makeRequest()
        #expect(request.kind == .bookingConversion && request.daily)
        #expect(request.fromDate == CalendarDate(iso: "2026-09-01")!.message && request.toDate == CalendarDate(iso: "2026-09-30")!.message)
        let plain = try AnalyticsCommand.Report.parse(["trials"]).makeRequest()
        #expect(plain.kind == .trialConversion && !plain.hasFromDate && !plain.hasToDate && !plain.daily)
        for (name, kind) in [("searches", ReportKind.searches), ("quota", .quotaUse), ("alerts", .alerts), ("clicks", .clickThrough)] {
            #expect(try AnalyticsCommand.Report.parse([name]).makeRequest().kind == kind)
        }
        #expect { try AnalyticsCommand.Report.parse(["revenue"]) } throws: { "\($0)".contains("revenue") }
        #expect { try AnalyticsCommand.Report.parse(["searches", "--from", "2026-02-30"]) } throws: { "\($0)".contains("--from") }
        #expect { try AnalyticsCommand.Report.parse(["searches", "--to", "30/09/2026"]) } throws: { "\($0)".contains("--to") }
        #expect { try AnalyticsCommand.Report.parse(["searches", "--from", "2026-09-02", "--to", "2026-09-01"]) } throws: { "\($0)".contains("before") }
        #expect(throws: (any Error).self) { try AnalyticsCommand.OptOut.parse([]) }
        #expect(try AnalyticsCommand.Delete.parse(["--user", "u-1"]).user == "u-1")
    }

    @Test("a daily conversions table has the report's labels, right-aligned numbers, percentages, commission and TOTAL last")
    func table() {
        var response = AnalyticsReportResponse()
        response.kind = .bookingConversion
        response.countLabel = "affiliate clicks"
        response.hitsLabel = "bookings"
        response.rows = [
            row("2026-09-20", "dealcard", 1, 1, 10_000, amount: Money(minorUnits: 500, currency: "USD")),
            row("2026-09-20", "detail", 12, 0, 0),
            row(nil, "", 13, 1, 769, amount: Money(minorUnits: 500, currency: "USD")),
        ]
        #expect(AnalyticsOutput.table(response) == """
            DAY         PLACEMENT  AFFILIATE CLICKS  BOOKINGS     RATE  COMMISSION
            2026-09-20  dealcard                  1         1  100.00%       $5.00
            2026-09-20  detail                   12         0    0.00%           -
                        TOTAL                    13         1    7.69%       $5.00
            """)
    }

    @Test("a quota table shows the limit; JSON keeps absent values as null")
    func quotaAndJSON() throws {
        var response = AnalyticsReportResponse()
        response.kind = .quotaUse
        response.countLabel = "calls"
        response.hitsLabel = "successful calls"
        response.rows = [row(nil, "amadeus", 3, 2, 6667, limit: 2500), row(nil, "", 3, 2, 6667, limit: 2500)]
        #expect(AnalyticsOutput.table(response) == """
            PROVIDER  CALLS  SUCCESSFUL CALLS    RATE  LIMIT
            amadeus       3                 2  66.67%   2500
            TOTAL         3                 2  66.67%   2500
            """)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try encoder.encode(AnalyticsOutput.ReportJSON(response)), as: UTF8.self)
        #expect(json.contains(#""report":"quota""#) && json.contains(#""day":null"#) && json.contains(#""limit":2500"#))
        #expect(json.contains(#""commission":null"#) && json.contains(#""rate":"66.67%""#) && json.contains(#""total":true"#))
    }
}
