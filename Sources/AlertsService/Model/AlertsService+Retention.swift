import FareLensStore
import Foundation
import GRDB

extension AlertsService {
    /// How often retention runs, in clock time.
    static let retentionPeriod: TimeInterval = 3_600

    /// Runs ``applyRetention(now:)`` at most once per ``retentionPeriod`` of clock time.
    ///
    /// - Returns: whether it ran.
    @discardableResult
    func applyRetentionIfDue() async -> Bool {
        let now = clock.now()
        if let last = lastRetention, now.timeIntervalSince(last) < Self.retentionPeriod { return false }
        lastRetention = now
        await applyRetention(now: now)
        return true
    }

    /// Deletes decisions decided more than ``retention`` before `now`, after
    /// delivery has deleted their outbox rows (``AlertDelivery/applyRetention(cutoff:)``),
    /// and mutes and pauses that have
    /// ended, and events set aside as long ago (their content may name a
    /// user, and a fare that old is worthless). Alert ids begin with their
    /// decision time, so the old rows are a prefix of the primary key: no
    /// table scan.
    ///
    /// - Returns: the decisions deleted; nil when the database failed (logged).
    @discardableResult
    func applyRetention(now: Date) async -> Int? {
        let cutoff = Self.newAlertID(at: now.addingTimeInterval(-retention)).prefix(13)  // "a" + 12 hex digits of milliseconds
        let nowMs = now.unixMilliseconds
        let setAsideCutoffMs = now.addingTimeInterval(-retention).unixMilliseconds
        let usersWithState = usersWithState
        do {
            try await delivery.applyRetention(cutoff: String(cutoff))
            let deleted = try await database.writeToEnd { db in
                // Loaded again by the next batch, without the users whose state has expired.
                usersWithState.forget()
                try db.execute(sql: "DELETE FROM alert WHERE alertID < ?", arguments: [String(cutoff)])
                let alerts = db.changesCount
                try db.execute(sql: "DELETE FROM route_mute WHERE mutedUntilUnixMs <= ?", arguments: [nowMs])
                try db.execute(sql: "DELETE FROM alert_pause WHERE pausedUntilUnixMs <= ?", arguments: [nowMs])
                try db.execute(sql: "DELETE FROM set_aside_event WHERE setAsideAtUnixMs < ?", arguments: [setAsideCutoffMs])
                return alerts
            }
            if deleted > 0 { logger.info("old alert decisions deleted", metadata: ["alerts": "\(deleted)", "olderThanDays": "\(Int(retention / 86_400))"]) }
            return deleted
        } catch {
            logger.error("alert retention failed; it runs again in an hour", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
