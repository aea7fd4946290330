public import FareLensRuntime
import FareLensStore
import Foundation
import Logging

/// The analytics service: events from every service, pseudonymised, with
/// reports (SPEC §6; docs/analytics.md).
public enum AnalyticsServiceEntry {
    /// How the node builds this service.
    ///
    /// Fails with ``AnalyticsSettingsError`` naming the key for a bad
    /// `analytics.*` value, or when `analytics.requirePseudonymKey` is true
    /// and `analytics.pseudonymKeys` is not set.
    public static let descriptor = ServiceDescriptor(name: "analytics", address: "analytics", migrations: migrations) { context in
        let settings = try AnalyticsSettings(reader: context.configuration)
        let keyring = try keyring(settings, database: context.database, now: context.clock.now(), logger: context.logger)
        return AnalyticsService(
            database: context.database, bus: context.bus, clock: context.clock, keyring: keyring,
            retentionInterval: settings.retentionInterval, logger: context.logger
        )
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("analytics-001-events") { db in
            try GeneratedKeyRecord.migrate(db)
            try ClientEventRecord.migrate(db)
            try ServiceEventRecord.migrate(db)
            try OptOutRecord.migrate(db)
            try TrialUserRecord.migrate(db)
            try AlertSeenRecord.migrate(db)
            try ClickAttributionRecord.migrate(db)
            try CommissionRecord.migrate(db)
            try RollupRecord.migrate(db)
        }
        return migrations
    }

    /// The configured keys, plus the generated key (version 0) when one is
    /// stored: with no key configured it is generated once and used, with a
    /// warning at every start (docs/analytics.md says why).
    static func keyring(_ settings: AnalyticsSettings, database: ServiceDatabase, now: Date, logger: Logger) throws -> PseudonymKeyring {
        if settings.pseudonymKeys.isEmpty {
            guard !settings.requireConfiguredKey else {
                throw AnalyticsSettingsError(key: "analytics.pseudonymKeys", message: "is not set, and analytics.requirePseudonymKey is true")
            }
            let (record, generated) = try database.write { db in try GeneratedKeyRecord.storedOrGenerated(db, now: now.unixMilliseconds) }
            logger.warning(
                "analytics.pseudonymKeys is not set: user ids are pseudonymised with a key \(generated ? "generated now and " : "")kept in analytics.sqlite (version 0); configure analytics.pseudonymKeys in production"
            )
            return PseudonymKeyring([record.key])
        }
        let generated = try database.writer.read { db in try GeneratedKeyRecord.stored(db) }
        return PseudonymKeyring(settings.pseudonymKeys + (generated.map { [$0.key] } ?? []))
    }
}
