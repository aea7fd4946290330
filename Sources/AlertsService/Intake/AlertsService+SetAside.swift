import FareLensBus
import FareLensStore
import Foundation
import GRDB
import Logging

/// A batch whose transaction fails for a reason in its data — a constraint,
/// a value too big — fails the same way every time it is tried: retried,
/// it would hold up its topic for ever. Its events are decided one at a
/// time instead, and the one that fails alone is set aside: acknowledged in
/// the inbox and kept in `set_aside_event` with its content, logged and counted
/// (docs/alerts.md, "A batch that cannot be recorded"). A failure of the
/// database itself — a full disk, an I/O error, a corrupt file — is not the
/// data's (``FareLensStore/DatabaseFailure/isCausedByData(_:)``): that batch
/// is waited out, as nothing else could be recorded either.
extension AlertsService {
    /// `prepared`'s events recorded each in its own transaction, at the
    /// clock's current instant, in order; the rows of those recorded. With
    /// one event, that event is set aside (``setAside(_:content:failure:)``).
    /// Nil when cancelled meanwhile: the events recorded so far are
    /// announced, the rest are left unsettled (redelivered, the inbox skips
    /// the recorded ones).
    nonisolated func recordOneByOne(_ prepared: PreparedDecisions, failure: any Error) async -> [AlertRow]? {
        guard prepared.pending.count > 1 else {
            guard let only = prepared.pending.first else { return [] }
            return await setAside(only, content: prepared.contents.event(for: only.key), failure: failure)
        }
        logger.warning(
            "alert decisions failed for a reason in their data; deciding the batch's events one at a time",
            metadata: ["events": "\(prepared.pending.count)", "error": "\(DatabaseFailure.summary(failure))"])
        var rows: [AlertRow] = []
        for event in prepared.pending {
            var single = prepared
            single.pending = [event]
            single.byUser = Self.candidatesByUser([event], known: prepared.recipients)
            single.instant = clock.now()
            single.decidedAhead = .none
            guard let recorded = await record(single) else {
                if !rows.isEmpty { announce(rows) }
                return nil
            }
            rows += recorded
        }
        return rows
    }

    /// Records `event` as applied in the inbox and in `set_aside_event`
    /// with its content (to be retried by an operator, ``retrySetAside(_:)``),
    /// without its decisions; logged at error and counted
    /// (`farelens_alerts_events_set_aside_total`). This write is waited out
    /// like a decision's. Nil when cancelled first.
    nonisolated func setAside(_ event: PendingEvent, content: (any BusEvent)?, failure: any Error) async -> [AlertRow]? {
        let now = clock.now()
        let row = Self.setAsideRow(event, content: content, failure: failure, at: now, logger: logger)
        let recorded = await retryingEverySecond("alert event not set aside; trying again every second", level: .error, metadata: ["event": "\(event.key.publisher)/\(event.key.sequence)"]) {
            try await database.writer.write { db in
                // Already applied (a redelivery raced it): nothing to set aside.
                guard try ServiceDatabase.recordOnce(event.key, consumer: event.consumer, at: now, in: db) else { return false }
                try row.insert(db)
                return true
            }
        }
        guard case .success(let isNew)? = recorded else { return nil }
        if isNew {
            logger.error(
                "alert event set aside: its decisions cannot be recorded for a reason in its data; it is acknowledged and not tried again",
                metadata: ["event": "\(row.publisher)/\(event.key.sequence)", "consumer": "\(row.consumer)", "candidates": "\(row.candidates)", "error": "\(row.error)"])
            AlertsMetrics.setAside.increment()
        }
        return []
    }

    /// `event`'s row in `set_aside_event`, with `content` (the event) in its
    /// wire encoding and the user it names; without, when it is not known.
    static func setAsideRow(_ event: PendingEvent, content: (any BusEvent)?, failure: any Error, at now: Date, logger: Logger) -> SetAsideEventRow {
        var row = SetAsideEventRow(
            publisher: event.key.publisher, sequence: Int64(bitPattern: event.key.sequence), consumer: event.consumer,
            candidates: event.candidates.count, error: DatabaseFailure.summary(failure), setAsideAtUnixMs: now.unixMilliseconds)
        guard let content else { return row }
        row.userID = userID(of: content)
        do {
            row.payload = Data(try content.wireEncoded())
        } catch {
            // Kept without its content: listed, not retriable.
            logger.error("set-aside event's content not encoded; it cannot be retried", metadata: ["event": "\(row.publisher)/\(event.key.sequence)", "error": "\(error)"])
        }
        return row
    }
}
