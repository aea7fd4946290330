import FareLensMessages
import FareLensStore
import Foundation
import GRDB

extension SubscriptionService {
    /// The pending announcement (migration `subscription-005-announce-preferences`)
    /// of every user's preferences as they stand, for the consumers that keep
    /// them from `UserPreferencesChanged` (search's sweep targets, alerts'
    /// audience); due again when one of them wants it (`AnnouncementWanted`).
    static let preferencesAnnouncement = AnnouncementWanted.userPreferences

    /// Writes `UserPreferencesChanged` with `announced` set for every user
    /// into the outbox, in the transaction that marks the announcement made,
    /// if it is due; called at the start of ``run()``, before the outbox
    /// relay starts.
    ///
    /// - Returns: the users announced (0 when none was due).
    @discardableResult
    func announcePending() -> Int {
        let now = clock.now()
        do {
            let count = try database.makePendingAnnouncement(Self.preferencesAnnouncement) { db in
                let records = try UserRecord.order(Column("createdAtUnixMs"), Column("userID")).fetchAll(db)
                for record in records { try self.appendPreferences(record, at: now, parent: nil, announced: true, in: db) }
                return records.count
            }
            if count > 0 { logger.info("users' preferences announced to the services that keep them", metadata: ["users": "\(count)"]) }
            return count
        } catch {
            // Still due: the next start announces them.
            logger.error("users' preferences not announced", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
