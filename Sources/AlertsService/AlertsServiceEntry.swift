public import FareLensServiceKit
import FareLensMessages
import FareLensStore
import Foundation

/// The alerts service: alert policy, every decision with its reason, the
/// daily digest and the durable, signed delivery outbox (SPEC § 5;
/// docs/alerts.md, docs/webhooks.md).
public enum AlertsServiceEntry {
    /// How the node builds this service. Its channels come from the
    /// `alerts.` configuration: the log channel always (JSON lines to
    /// `alerts.log.path`, or the service log), the webhook when
    /// `alerts.webhook.url` is set.
    public static let descriptor = ServiceDescriptor(name: "alerts", address: "alerts", migrations: migrations) { context in
        let settings = try AlertDeliverySettings(reader: context.configuration)
        let channels = try channels(settings, context: context)
        let policy = settings.retryPolicy
        return AlertsService(
            database: context.database, bus: context.bus, clock: context.clock, channels: channels,
            backoff: { attempt, retryAfter in policy.delay(afterAttempt: attempt, retryAfter: retryAfter) },
            retention: TimeInterval(settings.retentionDays) * 86_400, gathering: settings.gatheringWindow, joined: context.joined,
            logger: context.logger)
    }

    /// The channels `settings` configure: the log always, the webhook and
    /// APNs push when set (said once at start-up when push is not). The
    /// webhook and push read real time (`webhook-timestamp`, an HTTP-date
    /// `Retry-After`, the provider token's `iat`) from the transport clock,
    /// never from `context.clock`, which the demo runs days ahead (issue
    /// #58: every receiver rejected the demo's timestamps as too new).
    ///
    /// - Throws: ``AlertDeliverySettingsError`` when the APNs key or trust roots cannot be used.
    static func channels(_ settings: AlertDeliverySettings, context: ServiceContext, transport: TransportClock = .system) throws -> [any AlertDeliveryChannel] {
        var channels: [any AlertDeliveryChannel] = [LogChannel(path: settings.logPath, logger: context.logger, now: { context.clock.now() })]
        if let webhook = settings.webhook {
            channels.append(WebhookChannel(settings: webhook, transport: transport))
        }
        if let apns = settings.apns {
            channels.append(try ApnsChannel(settings: apns, transport: transport))
            context.logger.notice("APNs push channel on", metadata: ["topic": "\(apns.topic)", "gateway": "\(apns.baseURL ?? "by device environment")"])
        } else {
            context.logger.notice("no APNs push channel: alerts.apns.keyPath is not set (docs/push.md)")
        }
        return channels
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("alerts-001-decisions") { db in
            try AlertRow.migrate(db)
            try OutboxRow.migrate(db)
            try RouteMuteRow.migrate(db)
            try AlertPauseRow.migrate(db)
            try ChannelStateRow.migrate(db)
        }
        migrations.register("alerts-002-sent-by-user", AlertRow.migrateSentIndex)
        migrations.register("alerts-003-set-aside-events", SetAsideEventRow.migrate)
        migrations.register("alerts-004-set-aside-content", SetAsideEventRow.migrateContent)
        migrations.register("alerts-005-decided-outbox", DecidedAlertsStore.migrate)
        migrations.register("alerts-006-uncertain-attempts", OutboxRow.migrateUncertainAttempts)
        migrations.register("alerts-007-devices", DeviceRow.migrate)
        migrations.register("alerts-008-outbox-per-device", OutboxRow.migrateAddress)
        migrations.register("alerts-009-recheck-outcome", AlertRow.migrateRecheck)
        migrations.register("alerts-010-fare-expiry", AlertRow.migrateExpiry)
        migrations.register("alerts-011-kept-audience", AudienceTables.migrate)
        migrations.register("alerts-012-route-track-records", RouteTrackRecordRow.migrate)
        // Who prefers which airport and who watches which route, kept from events: a new database (this node may
        // join after they were made) asks subscription and watchlist to announce them (WantedAnnouncements).
        migrations.registerWantedAnnouncements(
            named: "alerts-013-want-announcements", announcements: [AnnouncementWanted.userPreferences, AnnouncementWanted.watchlists])
        migrations.register("alerts-014-deleted-watchlists", AudienceDeletedWatchlistRecord.migrate)
        migrations.register("alerts-015-watchlist-change-order", AudienceWatchlistRecord.addChangeStampColumns)
        return migrations
    }
}
