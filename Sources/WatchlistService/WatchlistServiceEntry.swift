public import FareLensServiceKit
import FareLensStore

/// The watchlist service: routes people watch, checked at their local hours
/// (SPEC §3; docs/watchlist.md).
public enum WatchlistServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "watchlist", address: "watchlist", migrations: migrations) { context in
        WatchlistService(database: context.database, bus: context.bus, clock: context.clock, logger: context.logger)
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("watchlist-001-watchlists") { db in
            try WatchlistRecord.migrate(db)
            try OwnerRecord.migrate(db)
        }
        migrations.registerEventOutbox(named: "watchlist-002-event-outbox")
        // Search keeps the watched routes it sweeps from WatchlistChanged since this release: it learns those watched before.
        migrations.registerPendingAnnouncement(named: "watchlist-003-announce-watchlists", announcement: WatchlistService.watchlistsAnnouncement)
        // Thresholds in another currency than the fares: each check keeps the price converted and its rate (#60).
        migrations.register("watchlist-004-converted-checks", WatchlistRecord.migrateForConversion)
        migrations.register("watchlist-005-date-ranges", WatchlistRecord.migrateForDateRanges)
        // Alerts keeps who watches which route from WatchlistChanged since this release (issue #64): announced once
        // more, so it learns the watchlists made before (search, which keeps them too, applies the same state again).
        migrations.registerPendingAnnouncement(named: "watchlist-006-announce-watchlists-to-alerts", announcement: WatchlistService.watchlistsAnnouncement)
        // Each route's cities and metros, carried in the checks' events so that alerts need not ask search (issue #64).
        migrations.register("watchlist-007-places", WatchlistRecord.migrateForPlaces)
        return migrations
    }
}
