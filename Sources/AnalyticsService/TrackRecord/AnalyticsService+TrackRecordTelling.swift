import FareLensMessages
import FareLensServiceKit
import Foundation
import GRDB

/// Telling each route's track record as it changes (`RouteTrackRecordChanged`),
/// so a service that shows it — alerts, inside each push — keeps it from
/// the events and asks analytics nothing (docs/analytics.md, "Track record").
extension AnalyticsService {
    /// How often (clock time) the routes' records are told.
    static let trackRecordTellingPeriod: Duration = .seconds(3_600)
    /// A record unchanged is told again after this long, so a consumer that
    /// missed it (the event is not durable) or started since learns it.
    static let trackRecordRetelling: TimeInterval = 86_400
    /// Most routes told in one pass (the busiest first are not chosen: routes in code order).
    static let trackRecordRoutesPerPass = 10_000
    /// The window told: the 30 days the gateway shows beside a deal too.
    static let toldWindowDays: Int32 = 30

    /// Publishes the 30-day record of every route with alerts in the last
    /// 30 days when it changed since it was last told, or was last told a
    /// day ago or more; a route that no longer has alerts in the window is
    /// told once more (its empty record), then forgotten.
    ///
    /// - Returns: how many records were told.
    @discardableResult
    func tellTrackRecords() async -> Int {
        let now = clock.now()
        let today = Int((now.timeIntervalSince1970 / 86_400).rounded(.down))
        let since = today - Int(Self.toldWindowDays) + 1
        let routes: [(origin: String, destination: String)]
        do {
            routes = try read { db in
                try Row.fetchAll(db, sql: """
                    SELECT DISTINCT origin, destination FROM alert_seen
                    WHERE decisionDay >= ? AND origin != '' AND decision IN (\(AlertDecision.sent.rawValue), \(AlertDecision.stalePrice.rawValue))
                    ORDER BY origin, destination LIMIT ?
                    """, arguments: [since, Self.trackRecordRoutesPerPass]
                ).map { row in (row[0], row[1]) }
            }
        } catch {
            logger.error("routes' track records not told", metadata: ["error": "\(error)"])
            return 0
        }
        let current = Set(routes.map { "\($0.origin)-\($0.destination)" })
        let gone = toldTrackRecords.keys.filter { !current.contains($0) }.sorted().compactMap { key -> (String, String)? in
            let parts = key.split(separator: "-").map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        var told = 0
        for (origin, destination) in routes + gone {
            let key = "\(origin)-\(destination)"
            var request = RouteTrackRecordRequest()
            (request.origin, request.destination) = (origin, destination)
            guard let window = try? trackRecord(request).windows.first(where: { $0.days == Self.toldWindowDays }) else { continue }
            if let last = toldTrackRecords[key], last.window == window, now.timeIntervalSince(last.at) < Self.trackRecordRetelling { continue }
            var event = RouteTrackRecordChanged()
            (event.origin, event.destination, event.window, event.atUnixMs) = (origin, destination, window, now.unixMilliseconds)
            do {
                try await bus.publish(event)
            } catch {
                // Told at the next pass.
                logger.warning("a route's track record not told", metadata: ["route": "\(key)", "error": "\(error)"])
                continue
            }
            told += 1
            if current.contains(key) { toldTrackRecords[key] = (window, now) } else { toldTrackRecords[key] = nil }
        }
        return told
    }
}
