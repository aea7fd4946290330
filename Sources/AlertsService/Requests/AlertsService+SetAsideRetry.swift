import FareLensBus
import FareLensMessages
import FareLensStore
import Foundation
import GRDB
import Logging

/// The operator's side of set-aside events: listing them and deciding them
/// again from their kept content, say after an upgrade fixed the fault
/// (docs/alerts.md, "A batch that cannot be recorded").
extension AlertsService {
    /// Every set-aside event, oldest first.
    func setAsideEvents() throws(AlertsError) -> SetAsideEventsResponse {
        var response = SetAsideEventsResponse()
        response.events = try read { db in try Self.setAsideRows(in: db) }.map(\.message)
        return response
    }

    /// Decides the named set-aside events again — or every one with `all` —
    /// one at a time, oldest first, each in its own transaction through the
    /// same steps as the decision stream (candidates, recipients, policy,
    /// outbox) at the clock's current instant. A decided event is deleted
    /// from `set_aside_event` in its transaction, so two retries decide it
    /// once; one that fails again stays set aside, with the new error. An
    /// event whose content was not kept (set aside before `alerts-004`) is
    /// reported and left. Like the stream, this waits while subscription or
    /// search cannot answer. Cancelled (the service stopping, or a caller
    /// across the bridge gone), it stops: an event whose transaction has
    /// begun is decided, the rest stay set aside.
    ///
    /// - Throws: `invalid-field` (events) when neither events nor `all` is
    ///   given, or both; `not-set-aside` for an event that is not set aside
    ///   (nothing is retried then).
    func retrySetAside(_ request: RetrySetAsideRequest) async throws(AlertsError) -> RetrySetAsideResponse {
        guard request.all == request.events.isEmpty else {
            throw .invalidField("events", request.all ? "name no events when all is set" : "name at least one event, or set all")
        }
        let setAside = try read { db in try Self.setAsideRows(in: db) }
        for key in request.events where !setAside.contains(where: { $0.isNamed(by: key) }) {
            throw .notSetAside(key.publisher, sequence: key.sequence)
        }
        let chosen = request.all ? setAside : setAside.filter { row in request.events.contains { row.isNamed(by: $0) } }
        var response = RetrySetAsideResponse()
        for row in chosen { response.events.append(await retry(row)) }
        return response
    }

    private static func setAsideRows(in db: Database) throws -> [SetAsideEventRow] {
        try SetAsideEventRow.order(Column("setAsideAtUnixMs"), Column("publisher"), Column("sequence")).fetchAll(db)
    }

    /// One set-aside event decided again, and what came of it.
    private func retry(_ row: SetAsideEventRow) async -> RetriedSetAsideEvent {
        var result = RetriedSetAsideEvent()
        result.event.publisher = row.publisher
        result.event.sequence = UInt64(bitPattern: row.sequence)
        let metadata: Logger.Metadata = ["event": "\(row.publisher)/\(result.event.sequence)", "consumer": "\(row.consumer)"]
        guard row.isRetriable, let type = Self.decisionInputType(ofConsumer: row.consumer) else {
            result.error = "its content was not kept (set aside before migration alerts-004): it cannot be retried"
            return result
        }
        let event: any BusEvent
        do {
            event = try type.init(wireEncoded: Array(row.payload))
        } catch {
            result.error = "its content does not decode as \(type.wireTypeName): \(error)"
            return result
        }
        let key = InboxKey(publisher: row.publisher, sequence: UInt64(bitPattern: row.sequence))
        guard case .pending(let pending) = await pendingEvent(for: event, key: key), var prepared = await prepare([pending], contents: EventContents([key: event])) else {
            result.error = "not decided: cancelled (the service stopping, or the caller gone) while subscription or search was asked"
            return result
        }
        prepared.retryingSetAside = true
        prepared.decidedAhead = .none
        let retrying = prepared
        let now = clock.now()
        let (usersWithState, decidedEvents) = (usersWithState, decidedEvents)
        do {
            let decided = try await database.writeToEnd { db -> [AlertRow]? in
                // Retried meanwhile by another request: decided there.
                guard try SetAsideEventRow.exists(db, key: ["publisher": row.publisher, "sequence": row.sequence, "consumer": row.consumer]) else { return nil }
                return try Self.decideAndRecord(retrying, at: now, decidedAhead: .none, usersWithState: usersWithState, announcingTo: decidedEvents, in: db)
            }
            guard let decided else {
                result.error = "no longer set aside: retried meanwhile"
                return result
            }
            announce(decided)
            result.decided = true
            result.decisions = Int32(decided.count)
            logger.notice("set-aside alert event retried and decided", metadata: metadata.merging(["decisions": "\(decided.count)"]) { $1 })
        } catch {
            result.error = DatabaseFailure.summary(error)
            logger.error("set-aside alert event retried and failed again; it stays set aside", metadata: metadata.merging(["error": "\(result.error)"]) { $1 })
            if DatabaseFailure.isCausedByData(error) {
                let failed = result.error
                _ = try? await database.writeToEnd { db in
                    try db.execute(sql: "UPDATE set_aside_event SET error = ? WHERE publisher = ? AND sequence = ? AND consumer = ?", arguments: [failed, row.publisher, row.sequence, row.consumer])
                }
            }
        }
        return result
    }
}
