import GRDB

/// One alert analytics has heard of, as the `alert_seen` table keeps it
/// (migration `analytics-001-events`): its decision and whether it was
/// opened, so each alert counts once in the ALERTS roll-up and an open that
/// arrives before the decision still counts. Kept 90 days, like raw events.
struct AlertSeenRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "alert_seen"

    var alertID: String
    /// `AlertDecision` raw value; nil while only an open has been seen.
    var decision: Int?
    /// UTC day of the decision (the roll-up row its open counts in); nil while undecided.
    var decisionDay: Int?
    var opened: Bool
    /// The alert's user, pseudonymised (so delete-my-data finds it).
    var pseudonym: String?
    /// For retention: the decision's time, or the first open's.
    var seenAtUnixMs: Int64
    /// The alert's route, IATA codes as the alert names them (migration
    /// `analytics-002-alert-routes`; empty for digests, trial notices and
    /// alerts seen before it): the track record's unit.
    var origin: String
    var destination: String
    /// Delivered after the re-check found the fare at the alerted price or
    /// lower (`AlertDelivered.recheck` CONFIRMED; migration
    /// `analytics-003-recheck-confirmed`): the track record's confirmed count.
    var recheckConfirmed: Bool = false
    /// The alert's fare came from the simulated market (migration
    /// `analytics-004-alert-simulated`): the track record labels it.
    var simulated: Bool = false

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("alertID", .text).primaryKey()
            table.column("decision", .integer)
            table.column("decisionDay", .integer)
            table.column("opened", .boolean).notNull()
            table.column("pseudonym", .text).indexed()
            table.column("seenAtUnixMs", .integer).notNull().indexed()
        }
    }

    /// Migration `analytics-002-alert-routes`: each alert's route, for the track record.
    static func migrateRoutes(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "origin", .text).notNull().defaults(to: "")
            table.add(column: "destination", .text).notNull().defaults(to: "")
        }
        try db.create(index: "alert_seen_on_route", on: databaseTableName, columns: ["origin", "destination", "decisionDay"])
    }

    /// Migration `analytics-003-recheck-confirmed`: whether the re-check
    /// before delivery confirmed the alert's fare.
    static func migrateRecheckConfirmed(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "recheckConfirmed", .boolean).notNull().defaults(to: false)
        }
    }

    /// Migration `analytics-004-alert-simulated`: whether the alert's fare was simulated.
    static func migrateSimulated(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "simulated", .boolean).notNull().defaults(to: false)
        }
    }
}
