public import FareLensServiceKit
import Configuration
import FareLensStore

/// The subscription service: accounts, trials, tiers and entitlements
/// (SPEC §4; docs/subscription.md), purchase notifications and their
/// ledger, operator tier changes, user listing and deletion.
public enum SubscriptionServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "subscription", address: "subscription", migrations: migrations) { context in
        SubscriptionService(
            database: context.database, airports: BusAirportChecker(bus: context.bus), clock: context.clock, bus: context.bus,
            bcryptCost: try bcryptCost(context.configuration), appStore: try appStoreVerifier(context), logger: context.logger
        )
    }

    /// `subscription.bcryptCost` (`FARELENS_SUBSCRIPTION_BCRYPT_COST`): 4–31, 12 by default.
    static func bcryptCost(_ configuration: ConfigReader) throws -> UInt8 {
        let text = configuration.string(forKey: "bcryptCost") ?? configuration.int(forKey: "bcryptCost").map(String.init)
        guard let text else { return 12 }
        guard let cost = UInt8(text), (4...31).contains(cost) else {
            throw ConfigurationError.invalid(key: "subscription.bcryptCost", value: text, expected: "a whole number from 4 to 31 (bcrypt's cost)")
        }
        return cost
    }

    /// The App Store's verifier from `appstore.*` (``AppStoreSettings``); nil when not configured.
    static func appStoreVerifier(_ context: ServiceContext) throws -> AppStoreVerifier? {
        guard let settings = try AppStoreSettings.read(context.section("appstore")) else {
            context.logger.notice("no App Store endpoint: appstore.bundleId is not set (docs/payments.md)")
            return nil
        }
        context.logger.notice("App Store notifications and restores checked", metadata: [
            "bundle": "\(settings.bundleID)", "environment": "\(settings.environment.rawValue)", "roots": "\(settings.roots.count)",
        ])
        return try AppStoreVerifier(settings: settings)
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("subscription-001-users", UserRecord.migrate)
        migrations.register("subscription-002-purchases") { db in
            try UserRecord.migrateForPurchases(db)
            try PurchaseRecord.migrate(db)
        }
        migrations.registerEventOutbox(named: "subscription-003-event-outbox")
        migrations.register("subscription-004-identity") { db in
            try CredentialRecord.migrate(db)
            try AppleSubjectRecord.migrate(db)
            try RefreshTokenRecord.migrate(db)
        }
        // Search keeps the preferred airports it sweeps from UserPreferencesChanged since this release: it learns those chosen before.
        migrations.registerPendingAnnouncement(named: "subscription-005-announce-preferences", announcement: SubscriptionService.preferencesAnnouncement)
        // The App Store: each user's appAccountToken, the notifications received, the ledger found by subscription.
        migrations.register("subscription-006-app-store") { db in
            try UserRecord.migrateForAppStore(db)
            try StoreNotificationRecord.migrate(db)
            try db.create(index: "purchase_originalTransactionID", on: PurchaseRecord.databaseTableName, columns: ["originalTransactionID"])
        }
        // The traveller's own currency for "≈" prices (#60).
        migrations.register("subscription-007-display-currency", UserRecord.migrateForDisplayCurrency)
        // Alerts keeps who prefers which airport from UserPreferencesChanged since this release (issue #64): announced
        // once more, so it learns the airports chosen before (search, which keeps them too, applies the same state again).
        migrations.registerPendingAnnouncement(named: "subscription-008-announce-preferences-to-alerts", announcement: SubscriptionService.preferencesAnnouncement)
        return migrations
    }
}
