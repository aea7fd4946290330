import FareLensMessages
import Foundation
import GRDB

/// A route's track record (docs/analytics.md, "Track record"): what the
/// alerts on it did over the last 7, 30 and 90 days.
extension AnalyticsService {
    /// The windows, in days up to today.
    static let trackRecordWindows = [7, 30, 90]

    /// Counts the route's alerts by their latest decision: SENT (and of
    /// those, the ones delivered after the re-check confirmed their fare),
    /// and STALE_PRICE (stopped by the re-check just before sending); and
    /// the clicks to book a fare on it, by what the re-check after the click found.
    ///
    /// - Throws: ``AnalyticsError`` `invalid-field` naming `origin` or
    ///   `destination` when only one is given or a code is not 3 letters.
    func trackRecord(_ request: RouteTrackRecordRequest) throws(AnalyticsError) -> RouteTrackRecordResponse {
        let origin = request.origin.uppercased(), destination = request.destination.uppercased()
        let everyRoute = origin.isEmpty && destination.isEmpty
        if !everyRoute {
            for (field, code) in [("origin", origin), ("destination", destination)] where code.count != 3 || !code.allSatisfy({ $0.isASCII && $0.isLetter }) {
                throw .invalidField(field, "'\(code)' is not a 3-letter IATA code (leave both empty for every route)")
            }
        }
        let today = Int((clock.now().timeIntervalSince1970 / 86_400).rounded(.down))
        let longest = Self.trackRecordWindows.max() ?? 90
        // Every route: the alerts that have one (digests and trial notices do not).
        let routeFilter = everyRoute ? "AND origin != ''" : "AND origin = ? AND destination = ?"
        let arguments: StatementArguments = everyRoute ? [today - longest + 1] : [today - longest + 1, origin, destination]
        let (rows, clickRows) = try read { db in
            let alerts = try Row.fetchAll(db, sql: """
                SELECT decisionDay, decision, COUNT(*), SUM(recheckConfirmed), SUM(simulated) FROM alert_seen
                WHERE decisionDay >= ? AND decision IN (\(AlertDecision.sent.rawValue), \(AlertDecision.stalePrice.rawValue)) \(routeFilter)
                GROUP BY decisionDay, decision
                """, arguments: arguments).map { row -> (day: Int, decision: Int, count: Int, confirmed: Int, simulated: Int) in (row[0], row[1], row[2], row[3], row[4]) }
            let clicks = try Row.fetchAll(db, sql: """
                SELECT day, outcome, COUNT(*), SUM(simulated) FROM click_recheck WHERE day >= ? \(routeFilter) GROUP BY day, outcome
                """, arguments: arguments).map { row -> (day: Int, outcome: Int, count: Int, simulated: Int) in (row[0], row[1], row[2], row[3]) }
            return (alerts, clicks)
        }
        var response = RouteTrackRecordResponse()
        response.origin = origin
        response.destination = destination
        response.windows = Self.trackRecordWindows.map { days in
            var sent = 0, confirmed = 0, stopped = 0, simulated = 0
            for row in rows where row.day > today - days && row.day <= today {
                simulated += row.simulated
                if row.decision == AlertDecision.sent.rawValue {
                    sent += row.count
                    confirmed += row.confirmed
                } else {
                    stopped += row.count
                }
            }
            var clicks = TrackRecordWording.Clicks()
            for row in clickRows where row.day > today - days && row.day <= today {
                clicks.count += row.count
                clicks.simulated += row.simulated
                if row.outcome == RecheckOutcome.confirmed.rawValue { clicks.stillThere += row.count }
                if row.outcome == RecheckOutcome.risen.rawValue { clicks.risen += row.count }
            }
            return TrackRecordWording.window(
                days: days, sent: sent, confirmed: confirmed, stopped: stopped, simulated: simulated, clicks: clicks, route: everyRoute ? nil : "\(origin)→\(destination)")
        }
        return response
    }
}
