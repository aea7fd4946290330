public import FareLensServiceKit
import FareLensStore

/// The scoring service: price history, DealScore and the deal feed (SPEC §2; docs/scoring.md).
public enum ScoringServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "scoring", address: "scoring", migrations: migrations) { context in
        ScoringService(database: context.database, bus: context.bus, clock: context.clock, reference: try ReferenceData.bundled(), logger: context.logger)
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("scoring-001-history") { db in
            try DailyMinimumRecord.migrate(db)
            try DealRecord.migrate(db)
        }
        migrations.registerEventOutbox(named: "scoring-002-event-outbox")
        migrations.register("scoring-003-simulated-days") { db in try DailyMinimumRecord.migrateSimulated(db) }
        return migrations
    }
}
