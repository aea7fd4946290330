import FareLensStore
import Foundation
import GRDB

// The users as the alerts service keeps them from subscription's and
// watchlist's events (docs/alerts.md, "The audience of an exceptional deal,
// and each user's settings"): it asks neither service when it decides, so a
// benchmark gives its database the users before the run, in one
// transaction, instead of serving GetUsers, PreferredAirportUsers and
// RouteWatchers as it once did. The rows are what applying each user's
// UserPreferencesChanged would write.

/// Users `ids` in UTC, Pro (6 immediate alerts a day): `u…` without quiet
/// hours, `q…` with quiet hours all day (00:00–23:59), so their alerts are held.
func seedKeptUsers(_ database: ServiceDatabase, ids: [String]) throws {
    try database.writer.write { db in
        let statement = try db.makeStatement(sql: """
            INSERT OR REPLACE INTO audience_user (userID, preferencesAtUnixMs, deletedAtUnixMs, timeZone, quietHoursSet, quietDisabled,
              quietStartMinute, quietEndMinute, currency, tier, dailyCap, tierAtUnixMs)
            VALUES (?, 1, NULL, 'UTC', 1, ?, ?, ?, '', 2, 6, 1)
            """)
        for id in ids {
            let quiet = id.hasPrefix("q")
            try statement.execute(arguments: [id, !quiet, quiet ? 0 : nil, quiet ? 23 * 60 + 59 : nil])
        }
    }
}

/// `u0`…`u<count-1>` and `q0`…`q<count-1>`.
func benchmarkUserIDs(_ count: Int, prefixes: [String] = ["u", "q"]) -> [String] {
    prefixes.flatMap { prefix in (0..<count).map { "\(prefix)\($0)" } }
}

/// The pipeline's audience: `usersPerAirport` users preferring each origin
/// (`u<AIRPORT><index>`, weight 1), and every other one of them watching
/// each pipeline route from that origin, so half the deals' candidates carry
/// the watchlist factor.
func seedPipelineAudience(_ database: ServiceDatabase) throws {
    let origins = Set(pipelineRoutes.map(\.0)).sorted()
    let ids = origins.flatMap { airport in (0..<usersPerAirport).map { "u\(airport)\($0)" } }
    try seedKeptUsers(database, ids: ids)
    try database.writer.write { db in
        for airport in origins {
            for index in 0..<usersPerAirport {
                let user = "u\(airport)\(index)"
                try db.execute(sql: "INSERT INTO audience_airport (userID, airport, weight) VALUES (?, ?, 1)", arguments: [user, airport])
                guard index % 2 == 0 else { continue }
                for (origin, destination) in pipelineRoutes where origin == airport {
                    try db.execute(
                        sql: "INSERT INTO audience_watchlist (watchlistID, userID, origin, destination, cabin, active, changedAtUnixMs) VALUES (?, ?, ?, ?, 1, 1, 1)",
                        arguments: ["w-\(user)-\(destination)", user, origin, destination])
                }
            }
        }
    }
}
