import FareLensStore
import Foundation
import GRDB

extension AnalyticsService {
    /// Purges what is kept only 90 days: raw client and service events,
    /// alerts seen (by decision time), clicks and their re-checks, and the inbox. Roll-ups, opt-outs,
    /// trial starts and the attribution ledger stay.
    ///
    /// - Returns: raw events purged.
    @discardableResult
    func applyRetention() -> Int {
        let cutoffMs = clock.now().unixMilliseconds - Int64(Self.rawRetentionDays) * 86_400_000
        do {
            let purged = try database.writer.write { db in
                let events = try ClientEventRecord.filter(Column("occurredAtUnixMs") < cutoffMs).deleteAll(db)
                    + ServiceEventRecord.filter(Column("atUnixMs") < cutoffMs).deleteAll(db)
                try AlertSeenRecord.filter(Column("seenAtUnixMs") < cutoffMs).deleteAll(db)
                try ClickRecheckRecord.filter(Column("clickedAtUnixMs") < cutoffMs).deleteAll(db)
                try ServiceDatabase.pruneInbox(appliedBeforeUnixMs: cutoffMs, in: db)
                return events
            }
            if purged > 0 { logger.info("raw events past retention purged", metadata: ["events": "\(purged)", "days": "\(Self.rawRetentionDays)"]) }
            return purged
        } catch {
            logger.error("retention not applied", metadata: ["error": "\(error)"])
            return 0
        }
    }
}
