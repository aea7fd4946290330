import AlertsService
import BenchmarkHarness
import FareLensStore
import Foundation
import GRDB

/// The floor of a sent decision's storage on one writer, in seconds for
/// `events` decisions, the rows and the outcomes apart: what a sent round's writer cannot do without, with
/// nothing else on it. Each decision's alert row (sent), its outbox rows
/// (one per channel in `channels`, each with `body`), the inbox row of each
/// transaction, 1,024 decisions per transaction as the service decides them
/// together; then each delivery's outcome, 256 alerts per transaction as a
/// delivery pass attempts them: the outbox rows marked delivered and the
/// alert row's delivery state. Every statement is cached and bound through
/// SQLite's C interface, as the service binds them (decision 0007). The
/// service's reads inside its transactions (the inbox's check, the policy
/// state, the outcomes' summary) are left out, so this is a lower bound on
/// its writer's time.
func sentRowsFloorSeconds(_ directory: String, events: Int, users: Int, body: Data, channels: [Int]) async throws -> (rows: Double, outcomes: Double) {
    let database = try openDatabase(directory)
    let bytes = [UInt8](body)
    let start = ContinuousClock.now
    for batch in stride(from: 0, to: events, by: 1_024) {
        try await database.writer.write { db in
            let alert = try db.cachedStatement(sql: "INSERT INTO alert VALUES (?, ?, 2, 1, 'Sent', 'JFK', 'NRT', '', ?, 'USD', 60000, 0, 120, 'Tokyo fell to $600', 'At or below your $700 target.', '1,2,3', ?, '2026-11-22', 0, 1, '', 0, 0, 0, '', '', '', 1, 2, 0, 0, 0)")
            let outbox = try db.cachedStatement(sql: """
                INSERT INTO outbox (alertID, channel, userID, kind, body, status, attempts, nextAttemptAtUnixMs, lastError, createdAtUnixMs, finishedAtUnixMs)
                VALUES (?, ?, ?, 2, ?, 1, 0, ?, '', ?, 0)
                """)
            let nowMs = Date().unixMilliseconds
            let indices = batch..<min(events, batch + 1_024)
            _ = try ServiceDatabase.recordOnce(indices.map { InboxKey(publisher: "bench", sequence: UInt64($0)) }, consumer: "alerts.threshold-crossed", at: Date(), in: db)
            for index in indices {
                let alertID = floorAlertID(index), userID = "u\(index % users)"
                try alert.executeBinding { values in
                    values.bind(alertID); values.bind(userID); values.bind("w\(index)"); values.bind(nowMs)
                }
                for channel in channels {
                    try outbox.executeBinding { values in
                        values.bind(alertID); values.bind(channel); values.bind(userID); values.bind(blob: bytes); values.bind(nowMs); values.bind(nowMs)
                    }
                }
            }
        }
    }
    let inserted = ContinuousClock.now
    var updated = 0
    for batch in stride(from: 0, to: events, by: 256) {
        updated += try await database.writer.write { db in
            let outbox = try db.cachedStatement(sql: """
                UPDATE outbox SET status = ?, attempts = ?, nextAttemptAtUnixMs = ?, lastError = ?, finishedAtUnixMs = ?
                WHERE alertID = ? AND channel = ?
                """)
            let alert = try db.cachedStatement(sql: "UPDATE alert SET deliveryState = ?, deliveryError = ?, attempts = ?, deliveredAtUnixMs = ? WHERE alertID = ?")
            let nowMs = Date().unixMilliseconds
            var changed = 0
            for index in batch..<min(events, batch + 256) {
                let alertID = floorAlertID(index)
                for channel in channels {
                    changed += try outbox.executeBinding { values in
                        values.bind(2); values.bind(1); values.bind(nowMs); values.bind(""); values.bind(nowMs); values.bind(alertID); values.bind(channel)
                    }
                }
                changed += try alert.executeBinding { values in
                    values.bind(2); values.bind(""); values.bind(1); values.bind(nowMs); values.bind(alertID)
                }
            }
            return changed
        }
    }
    let end = ContinuousClock.now
    // Every update found its row: the outcomes were written, not skipped.
    guard updated == events * (channels.count + 1) else { throw FloorError(updated: updated, expected: events * (channels.count + 1)) }
    try database.close()
    return (nanoseconds(inserted - start) / 1e9, nanoseconds(end - inserted) / 1e9)
}

/// Ids that sort by index, as the service's time-ordered ids sort by time.
private func floorAlertID(_ index: Int) -> String {
    let digits = String(index)
    return "a" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
}

/// The floor's updates changed fewer rows than it inserted: it measured less than it claims.
struct FloorError: Error, CustomStringConvertible {
    let updated: Int
    let expected: Int
    var description: String { "the floor's outcome updates changed \(updated) rows, not \(expected)" }
}
