import FareLensMessages
import FareLensStore
import Foundation
import GRDB

extension WatchlistService {
    /// The pending announcement (migration `watchlist-003-announce-watchlists`)
    /// of every watchlist as it stands, for the consumers that keep
    /// watchlists from `WatchlistChanged` (search's sweep targets, alerts'
    /// audience); due again when one of them wants it (`AnnouncementWanted`).
    static let watchlistsAnnouncement = AnnouncementWanted.watchlists

    /// Writes `WatchlistChanged(ANNOUNCED)` for every watchlist into the
    /// outbox, in the transaction that marks the announcement made, if it is
    /// due; called at the start of ``run()``, before the outbox relay starts.
    ///
    /// - Returns: the watchlists announced (0 when none was due).
    @discardableResult
    func announcePending() -> Int {
        let now = clock.now()
        do {
            let count = try database.makePendingAnnouncement(Self.watchlistsAnnouncement) { db in
                let records = try WatchlistRecord.order(Column("createdAtUnixMs"), Column("watchlistID")).fetchAll(db)
                for record in records { try self.appendChange(.announced, record, at: now, parent: nil, in: db) }
                return records.count
            }
            if count > 0 { logger.info("watchlists announced to the services that keep them", metadata: ["watchlists": "\(count)"]) }
            return count
        } catch {
            // Still due: the next start announces them.
            logger.error("watchlists not announced", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
