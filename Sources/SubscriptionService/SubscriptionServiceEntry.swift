public import FareLensRuntime
import FareLensStore

/// The subscription service: accounts, trials, tiers and entitlements
/// (SPEC §4; docs/subscription.md), purchase notifications and their
/// ledger, operator tier changes, user listing and deletion.
public enum SubscriptionServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "subscription", address: "subscription", migrations: migrations) { context in
        SubscriptionService(
            database: context.database, airports: BusAirportChecker(bus: context.bus), clock: context.clock, bus: context.bus,
            logger: context.logger
        )
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("subscription-001-users", UserRecord.migrate)
        migrations.register("subscription-002-purchases") { db in
            try UserRecord.migrateForPurchases(db)
            try PurchaseRecord.migrate(db)
        }
        migrations.registerEventOutbox(named: "subscription-003-event-outbox")
        return migrations
    }
}
