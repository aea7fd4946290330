import FareLensBus
import FareLensMessages
import FareLensStore
import Foundation
import GRDB

/// Silent pushes: what changed on a watchlist, to every device of its owner
/// (docs/push.md § Silent pushes). Followed only when the push channel is
/// configured; each event is applied once (inbox consumer
/// ``watchlistSyncConsumer``), and a newer change of one watchlist replaces
/// a silent push to the same device still waiting, so a phone that was off
/// gets the latest diff, once.
extension AlertDelivery {
    static let watchlistSyncConsumer = "alerts.watchlist-sync"
    /// An undelivered silent push is useless after this: the app refreshes on launch anyway.
    static let silentPushLifetime: TimeInterval = 3_600

    /// Follows `PriceChanged`, `WatchlistChanged` and `TierChanged` until the subscription ends.
    func followWatchlistUpdates(_ subscription: EventSubscription<any BusEvent>) async {
        for await delivery in subscription {
            let payload: SilentPushPayload?
            let userID: String
            switch delivery.event {
            case let event as PriceChanged: (payload, userID) = (SilentPushPayload(event), event.userID)
            case let event as WatchlistChanged: (payload, userID) = (SilentPushPayload(event), event.watchlist.userID)
            case let event as TierChanged: (payload, userID) = (SilentPushPayload(event), event.userID)
            default: continue
            }
            await enqueueSilentPush(payload, userID: userID, key: InboxKey(delivery.metadata.id))
        }
    }

    /// One event's silent pushes, in one transaction with its inbox row.
    func enqueueSilentPush(_ payload: SilentPushPayload?, userID: String, key: InboxKey) async {
        let now = clock.now()
        let nowMs = now.unixMilliseconds
        do {
            let queued = try await database.writeToEnd { db -> Int in
                guard try ServiceDatabase.recordOnce(key, consumer: Self.watchlistSyncConsumer, at: now, in: db), let payload, !userID.isEmpty else { return 0 }
                let tokens = try DeviceRow.tokens(of: userID, in: db)
                guard !tokens.isEmpty else { return 0 }
                let id = Self.silentPushID(at: now, watchlistID: payload.watchlistID, key: key)
                let body = payload.jsonBytes()
                for token in tokens {
                    // A newer diff of the same watchlist replaces one still waiting for this device.
                    try db.execute(
                        sql: """
                            DELETE FROM outbox WHERE channel = ? AND address = ? AND status = ? AND alertID >= 's' AND alertID < 't' AND alertID LIKE ?
                            """,
                        arguments: [AlertChannel.push.rawValue, token, OutboxRow.Status.pending.rawValue, "s%.\(payload.watchlistID).%"])
                    try OutboxRow(
                        alertID: id, channel: AlertChannel.push.rawValue, userID: userID, kind: AlertKind.watchlistUpdate.rawValue, body: Data(body),
                        status: .pending, attempts: 0, nextAttemptAtUnixMs: 0, lastError: "", createdAtUnixMs: nowMs, finishedAtUnixMs: 0, address: token
                    ).insert(db)
                }
                return tokens.count
            }
            if queued > 0 { poke() }
        } catch is CancellationError {
            return
        } catch {
            logger.error("silent push not queued", metadata: ["user": "\(userID)", "error": "\(error)"])
        }
    }

    /// "s", 12 hex digits of Unix milliseconds (ordered by time, like alert
    /// ids, so retention deletes a prefix), the watchlist, and the event's
    /// inbox key: `s0192f3a4b5c6.w-3f9a….node-a/42`.
    static func silentPushID(at instant: Date, watchlistID: String, key: InboxKey) -> String {
        let time = String(UInt64(max(0, instant.unixMilliseconds)), radix: 16)
        return "s" + String(repeating: "0", count: max(0, 12 - time.count)) + time + ".\(watchlistID).\(key.publisher)/\(key.sequence)"
    }

    /// The watchlist a silent push id names.
    static func watchlistID(ofSilentPush id: String) -> String? {
        let parts = id.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard id.hasPrefix("s"), parts.count == 3 else { return nil }
        return String(parts[1])
    }
}
