import FareLensMessages
import Foundation
import GRDB

extension AnalyticsService {
    /// The longest range a report covers.
    static let maximumReportDays = 3660

    /// A report over UTC days `from_date`…`to_date` (inclusive; defaults:
    /// `to_date` today on the service's clock, `from_date` 29 days before
    /// it), read from `daily_rollup` only, so days whose raw events were
    /// purged report the same as before.
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` naming `kind` (unset or
    ///   unknown), `from_date` or `to_date` (not a real day, to before from,
    ///   more than 3660 days).
    func report(_ request: AnalyticsReportRequest) throws(AnalyticsError) -> AnalyticsReportResponse {
        let (report, countLabel, hitsLabel) = try Self.kind(request.kind)
        let (from, to) = try Self.range(request, today: CalendarDate.of(clock.now(), in: TimeZone(identifier: "UTC") ?? .gmt))
        let records = try read { db in
            try RollupRecord
                .filter(Column("report") == report.rawValue && Column("day") >= from.daysSinceEpoch && Column("day") <= to.daysSinceEpoch)
                .fetchAll(db)
        }
        var response = AnalyticsReportResponse()
        response.kind = request.kind
        response.countLabel = countLabel
        response.hitsLabel = hitsLabel
        response.rows = ReportBuilder.rows(records, daily: request.daily)
        return response
    }

    /// The roll-up a report kind reads and its column names.
    static func kind(_ kind: ReportKind) throws(AnalyticsError) -> (RollupReport, String, String) {
        switch kind {
        case .searches: (.searches, "searches", "cache hits")
        case .quotaUse: (.quota, "calls", "successful calls")
        case .alerts: (.alerts, "alerts", "opened")
        case .clickThrough: (.clicks, "deals viewed", "affiliate clicks")
        case .bookingConversion: (.conversions, "affiliate clicks", "bookings")
        case .trialConversion: (.trials, "trials started", "became pro")
        default: throw .invalidField("kind", "must be SEARCHES, QUOTA_USE, ALERTS, CLICK_THROUGH, BOOKING_CONVERSION or TRIAL_CONVERSION")
        }
    }

    static func range(_ request: AnalyticsReportRequest, today: CalendarDate) throws(AnalyticsError) -> (CalendarDate, CalendarDate) {
        let to: CalendarDate
        if request.hasToDate {
            guard let date = CalendarDate(request.toDate) else { throw .invalidField("to_date", "is not a real day") }
            to = date
        } else {
            to = today
        }
        let from: CalendarDate
        if request.hasFromDate {
            guard let date = CalendarDate(request.fromDate) else { throw .invalidField("from_date", "is not a real day") }
            from = date
        } else {
            from = to.adding(days: -29)
        }
        guard from <= to else { throw .invalidField("to_date", "\(to) is before from_date \(from)") }
        guard from.days(until: to) < maximumReportDays else {
            throw .invalidField("to_date", "a report covers at most \(maximumReportDays) days; \(from)…\(to) is \(from.days(until: to) + 1)")
        }
        return (from, to)
    }
}
