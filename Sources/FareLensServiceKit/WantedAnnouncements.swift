public import FareLensBus
public import FareLensMessages
public import FareLensStore
public import Logging

/// Both sides of `AnnouncementWanted`.
///
/// A durable event reaches the nodes that had joined when it was
/// published (and, while they are away, is kept for them); a node that
/// joins later never gets it. A service that keeps another's state from
/// its events (alerts: who prefers which airport and who watches which
/// route; search: the routes and airports it sweeps) therefore starts
/// empty when its node joins after that state was made, and would miss it
/// until each piece changed. So, when it starts without it (its migrations
/// record the announcements it wants: a new database), it asks
/// (``ask(consumer:database:bus:joined:logger:)``), and the services that
/// hold the state announce it again (``follow(_:announcement:database:logger:announce:)``),
/// as the same events on the same topics, in order after what they
/// published before.
public enum WantedAnnouncements {
    /// Publishes `AnnouncementWanted` for what `database` still wants,
    /// once `joined` returns (the node's bridge started and, over NATS, its
    /// consumer made, so the announcements that answer reach it), then
    /// forgets those wants. A want that cannot be published stays, and the
    /// next start asks again.
    ///
    /// - Returns: the announcements asked for (none when nothing was wanted, or the publish failed).
    @discardableResult
    public static func ask(
        consumer: String, database: ServiceDatabase, bus: MessageBus, joined: @Sendable () async -> Void, logger: Logger
    ) async -> [String] {
        let wanted: [String]
        do {
            wanted = try database.wantedAnnouncements()
        } catch {
            logger.error("wanted announcements not read; asked for at the next start", metadata: ["error": "\(error)"])
            return []
        }
        guard !wanted.isEmpty else { return [] }
        await joined()
        guard !Task.isCancelled else { return [] }
        var want = AnnouncementWanted()
        want.consumer = consumer
        want.announcements = wanted
        do {
            try await bus.publish(want)
            try database.forgetWantedAnnouncements(wanted)
        } catch {
            logger.warning("announcements not asked for; asked again at the next start", metadata: ["announcements": "\(wanted.joined(separator: ","))", "error": "\(error)"])
            return []
        }
        logger.info("asked for the state this service keeps to be announced", metadata: ["announcements": "\(wanted.joined(separator: ","))"])
        return wanted
    }

    /// Follows `wants` until the subscription ends: each that names
    /// `announcement` makes it due again (``ServiceDatabase/oweAnnouncement(_:)``)
    /// and `announce` makes it (the service's `announcePending()`, which
    /// writes the announcing events into its outbox in the transaction
    /// that marks it made). Others are passed over.
    public static func follow(
        _ wants: EventSubscription<AnnouncementWanted>, announcement: String, database: ServiceDatabase, logger: Logger,
        announce: @Sendable () async -> Int
    ) async {
        for await delivery in wants {
            let want = delivery.event
            guard want.announcements.contains(announcement) else { continue }
            do {
                try database.oweAnnouncement(announcement)
            } catch {
                logger.error("a wanted announcement not recorded", metadata: ["consumer": "\(want.consumer)", "announcement": "\(announcement)", "error": "\(error)"])
                continue
            }
            let count = await announce()
            logger.info("announced again, as asked", metadata: ["consumer": "\(want.consumer)", "announcement": "\(announcement)", "count": "\(count)"])
        }
    }
}
