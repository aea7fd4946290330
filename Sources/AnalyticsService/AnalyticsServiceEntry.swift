public import FareLensServiceKit
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
        migrations.register("analytics-002-alert-routes", AlertSeenRecord.migrateRoutes)
        migrations.register("analytics-003-recheck-confirmed", AlertSeenRecord.migrateRecheckConfirmed)
        migrations.register("analytics-004-alert-simulated", AlertSeenRecord.migrateSimulated)
        migrations.register("analytics-005-click-rechecks", ClickRecheckRecord.migrate)
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
        let keyring = PseudonymKeyring(settings.pseudonymKeys + (generated.map { [$0.key] } ?? []))
        try warnOfOrphans(keyring, database: database, logger: logger)
        return keyring
    }

    /// Opt-outs and trial starts are kept for good under the key that made
    /// them: if that key's version is no longer configured they cannot be
    /// found, so an opt-out would no longer hold. Said loudly at start.
    ///
    /// - Returns: the versions no longer configured.
    @discardableResult
    static func warnOfOrphans(_ keyring: PseudonymKeyring, database: ServiceDatabase, logger: Logger) throws -> [String] {
        let versions = try database.writer.read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT substr(pseudonym, 2, instr(pseudonym, ':') - 2) FROM opt_out
                UNION SELECT DISTINCT substr(pseudonym, 2, instr(pseudonym, ':') - 2) FROM trial_user
                """)
        }
        let known = Set(keyring.keys.map { String($0.version) })
        let missing = versions.filter { !known.contains($0) }.sorted()
        guard !missing.isEmpty else { return [] }
        logger.error(
            "opt-outs and trial starts are stored under pseudonym key versions that are no longer configured; keep them in analytics.pseudonymKeys or those opt-outs stop holding",
            metadata: ["versions": "\(missing.joined(separator: ","))"]
        )
        return missing
    }
}
