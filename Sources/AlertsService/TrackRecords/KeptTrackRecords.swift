import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging

/// A route's 30-day track record as alerts keeps it (table
/// `route_track_record`, migration `alerts-012-route-track-records`), from
/// analytics' `RouteTrackRecordChanged`: the summary a push shows beside
/// the deal ("97% of our LON→BCN alerts were still bookable …", issue #59).
struct RouteTrackRecordRow: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "route_track_record"

    var origin: String
    var destination: String
    /// The window's one sentence (it says "not enough alerts yet" below 20).
    var summary: String
    var enoughAlerts: Bool
    /// When analytics told it: an older event is not applied over it, and a record not told again for
    /// ``KeptTrackRecords/freshFor`` is not shown.
    var toldAtUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("summary", .text).notNull()
            table.column("enoughAlerts", .boolean).notNull()
            table.column("toldAtUnixMs", .integer).notNull()
            table.primaryKey(["origin", "destination"])
        }
    }
}

/// Keeps each route's track record from analytics' events, so a push
/// carries it without alerts asking analytics anything (the request graph
/// stays one-way, docs/architecture.md).
struct KeptTrackRecords: Sendable {
    let database: ServiceDatabase
    let logger: Logger

    /// Analytics tells an unchanged record again every day: one not told for two is stale (analytics away), not shown.
    static let freshFor: TimeInterval = 2 * 86_400

    /// Applies `events` as they arrive until cancelled.
    func follow(_ events: EventSubscription<RouteTrackRecordChanged>) async {
        await withTaskCancellationHandler {
            for await delivery in events { apply(delivery.event) }
        } onCancel: {
            events.cancel()
        }
    }

    /// The record as `event` states it, unless a newer one is kept. Not
    /// durable: a write that fails is logged, and the next telling (within
    /// a day) brings it.
    func apply(_ event: RouteTrackRecordChanged) {
        guard !event.origin.isEmpty, !event.destination.isEmpty else { return }
        do {
            try database.writer.write { db in
                if let kept = try RouteTrackRecordRow.fetchOne(db, key: ["origin": event.origin, "destination": event.destination]), kept.toldAtUnixMs > event.atUnixMs { return }
                try RouteTrackRecordRow(
                    origin: event.origin, destination: event.destination, summary: event.window.summary, enoughAlerts: event.window.enoughAlerts,
                    toldAtUnixMs: event.atUnixMs
                ).save(db)
            }
        } catch {
            logger.warning("a route's track record not kept; the next telling brings it", metadata: ["route": "\(event.origin)-\(event.destination)", "error": "\(error)"])
        }
    }

    /// The summary a push on `origin`→`destination` shows at `now`: the kept
    /// record's, when analytics told it within ``freshFor``; nil otherwise.
    static func summary(_ origin: String, _ destination: String, at now: Date, in db: Database) throws -> String? {
        guard !origin.isEmpty, !destination.isEmpty,
            let row = try RouteTrackRecordRow.fetchOne(db, key: ["origin": origin, "destination": destination]),
            now.timeIntervalSince(Date(unixMilliseconds: row.toldAtUnixMs)) < freshFor, !row.summary.isEmpty
        else { return nil }
        return row.summary
    }
}
