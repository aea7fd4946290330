import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension AlertDelivery {
    /// Puts dead-lettered alerts back into the outbox — one by id, or every
    /// one decided since a time — with their attempts reset and the same id
    /// and body, and switches channels disabled by a 410 back on. Only dead
    /// letters (and rows held back by a disabled channel) are replayed:
    /// replaying a delivered alert would send it twice.
    func replay(_ request: ReplayAlertsRequest) async throws(AlertsError) -> ReplayAlertsResponse {
        guard request.sinceUnixMs >= 0 else { throw .invalidField("since_unix_ms", "must not be negative") }
        let replayable = [OutboxRow.Status.deadLettered.rawValue, OutboxRow.Status.endpointDisabled.rawValue]
        let replayed = try await write { db throws(AlertsError) in
            try Self.catching { () throws -> [String] in
                let rows: [OutboxRow]
                if !request.alertID.isEmpty {
                    guard let alert = try AlertRow.fetchOne(db, key: request.alertID) else { throw AlertsError.notFound(request.alertID) }
                    rows = try OutboxRow.filter(Column("alertID") == request.alertID && replayable.contains(Column("status"))).fetchAll(db)
                    guard !rows.isEmpty else {
                        let state = alert.message.deliveryState
                        throw AlertsError.notDeadLettered(request.alertID, state: "\(state)")
                    }
                } else {
                    rows = try OutboxRow.filter(replayable.contains(Column("status")) && Column("createdAtUnixMs") >= request.sinceUnixMs).fetchAll(db)
                }
                _ = try ChannelStateRow.deleteAll(db)
                for var row in rows {
                    row.status = .pending
                    row.attempts = 0
                    // Due at once (retries are due by real time). `uncertainAttempts` stays: an alert that may
                    // have arrived is not judged again (no stale-price re-check) on its replay either.
                    row.nextAttemptAtUnixMs = 0
                    row.finishedAtUnixMs = 0
                    try row.update(db)
                }
                let ids = Array(Set(rows.map(\.alertID))).sorted()
                for alertID in ids {
                    guard var alert = try AlertRow.fetchOne(db, key: alertID) else { continue }
                    alert.apply(DeliverySummary(try OutboxRow.filter(Column("alertID") == alertID).fetchAll(db)))
                    try alert.update(db)
                }
                return ids
            }
        }
        if !replayed.isEmpty { logger.notice("dead letters replayed", metadata: ["alerts": "\(replayed.count)"]) }
        var response = ReplayAlertsResponse()
        response.alertIds = replayed
        return response
    }
}
