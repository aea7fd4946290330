import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB

extension WatchlistService {
    /// A tier change, applied exactly once through the inbox: the owner's
    /// tier, limit and schedule follow it. On a downgrade the newest active
    /// watchlists beyond the new limit become inactive (`OVER_TIER_LIMIT`),
    /// never deleted; on an upgrade those come back, oldest first, as far as
    /// the new limit allows. Watchlists the user switched off stay off.
    ///
    /// The tier applied is the user's tier now, asked of subscription
    /// (`GetUser`), not the event's: the owner row may already hold a newer
    /// tier than the event's, learned from subscription's answer when the
    /// watchlist was created. A user made a trial and set to Free at once
    /// had their watchlist created as Free's, then the trial's TierChanged
    /// arrived and made it a trial's until the Free one followed; a range
    /// check in between scanned a trial's 31 trips (`WatchlistRangeTests`,
    /// a loaded run). When subscription cannot be asked, or no longer knows
    /// the user (a `UserDeleted` follows), the event's tier is applied.
    ///
    /// - Returns: the watchlists that changed, or nil when the event was
    ///   applied before (a redelivery) or the user has no watchlists here.
    @discardableResult
    func apply(_ delivery: Delivery<TierChanged>) async -> [WatchlistRecord]? {
        let event = delivery.event
        let key = InboxKey(delivery.metadata.id)
        // Asked only for a user with watchlists here (the others' events change nothing).
        let hasOwner = (try? read { db in try OwnerRecord.exists(db, key: event.userID) }) ?? true
        var current: GetUserResponse?
        if hasOwner { current = try? await GetUserRequest.user(event.userID, on: bus) }
        let tier = current.map(\.user.tier) ?? event.current
        let entitlements = current.map(\.entitlements) ?? event.entitlements
        let limit = entitlements.hasActiveWatchlists ? Int(entitlements.activeWatchlists) : nil
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        let changed: [WatchlistRecord]??
        do {
            changed = try database.applyOnce(key, consumer: Self.tierConsumer, at: now) { db -> [WatchlistRecord]? in
                guard var owner = try OwnerRecord.fetchOne(db, key: event.userID) else { return nil }
                let wasPro = owner.isPro
                owner.tier = tier.rawValue
                owner.activeLimit = limit
                owner.datePairLimit = Self.datePairLimit(entitlements)
                if owner.isPro != wasPro { owner.nextCheckAtUnixMs = Self.unixMs(owner.schedule.next(after: now, in: owner.zone)) }
                try owner.update(db)
                let changed = try Self.fitToLimit(event.userID, limit: limit, at: nowMs, in: db)
                for record in changed { try self.appendChange(record.active ? .activated : .deactivated, record, at: now, parent: nil, in: db) }
                return changed
            }
        } catch {
            // Not recorded in the inbox, so a redelivery (or a restart) applies it.
            logger.error("tier change not applied", metadata: ["user": "\(event.userID)", "error": "\(error)"])
            return nil
        }
        guard let changed, let changed else { return nil }
        if !changed.isEmpty {
            logger.info("watchlists fitted to a new tier", metadata: ["user": "\(event.userID)", "tier": "\(tier)", "changed": "\(changed.count)"])
        }
        return changed
    }

    /// Deactivates the newest active watchlists beyond `limit`, or restores
    /// `OVER_TIER_LIMIT` ones (oldest first) while there is room.
    static func fitToLimit(_ userID: String, limit: Int?, at nowMs: Int64, in db: Database) throws -> [WatchlistRecord] {
        let mine = try WatchlistRecord.filter(Column("userID") == userID).order(Column("createdAtUnixMs"), Column("watchlistID")).fetchAll(db)
        let active = mine.filter(\.active)
        var changed: [WatchlistRecord] = []
        if let limit, active.count > limit {
            for var record in active.dropFirst(limit) {
                record.active = false
                record.inactiveReason = Watchlist.InactiveReason.overTierLimit.rawValue
                record.updatedAtUnixMs = nowMs
                try record.update(db)
                changed.append(record)
            }
        } else {
            var room = limit.map { $0 - active.count } ?? Int.max
            for var record in mine where !record.active && record.inactiveReason == Watchlist.InactiveReason.overTierLimit.rawValue && room > 0 {
                record.active = true
                record.inactiveReason = 0
                record.updatedAtUnixMs = nowMs
                try record.update(db)
                changed.append(record)
                room -= 1
            }
        }
        return changed
    }

    /// A new time zone moves the user's next check to their new local slot.
    func apply(_ event: UserPreferencesChanged) {
        do {
            try database.writer.write { db in
                guard var owner = try OwnerRecord.fetchOne(db, key: event.userID), owner.timeZone != event.timeZone, !event.timeZone.isEmpty else { return }
                owner.timeZone = event.timeZone
                owner.nextCheckAtUnixMs = Self.unixMs(owner.schedule.next(after: clock.now(), in: owner.zone))
                try owner.update(db)
            }
        } catch {
            logger.error("time zone change not applied", metadata: ["user": "\(event.userID)", "error": "\(error)"])
        }
    }

    /// A deleted user's watchlists and owner row are erased.
    func apply(_ event: UserDeleted) {
        do {
            let erased = try database.writer.write { db in
                _ = try OwnerRecord.deleteOne(db, key: event.userID)
                return try WatchlistRecord.filter(Column("userID") == event.userID).deleteAll(db)
            }
            logger.info("deleted user's watchlists erased", metadata: ["user": "\(event.userID)", "watchlists": "\(erased)"])
        } catch {
            logger.error("deleted user's watchlists not erased", metadata: ["user": "\(event.userID)", "error": "\(error)"])
        }
    }
}
