import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB

extension AnalyticsService {
    /// Market data, and analytics' own track records told back to it: far
    /// too many events to keep one by one, and about no user; counted per
    /// day and topic only, without the inbox (a rare cross-process
    /// redelivery may count one twice).
    static let countedOnly: Set<String> = [FareObserved.topic.name, DealScored.topic.name, RouteTrackRecordChanged.topic.name]

    /// What applying a batch needs from the actor, as values (the
    /// transaction runs off it).
    struct IngestContext: Sendable {
        let keyring: PseudonymKeyring
        let optedOut: Set<String>
        let nowMs: Int64
    }

    /// Applies events heard on the bus, all in one transaction: each is
    /// counted in `daily_rollup` (per topic, and in the report it feeds),
    /// kept raw under its user's pseudonym unless that user opted out, and a
    /// `UserDeleted` erases that user's data. Durable events are applied
    /// exactly once (the inbox): a redelivery is skipped. If the transaction
    /// fails nothing is applied, and nothing acknowledged.
    ///
    /// - Returns: how many were applied (not redeliveries).
    @discardableResult
    func ingest(_ events: [(any BusEvent, EventMetadata)]) -> Int {
        heard(events.count)
        let now = clock.now()
        let context = IngestContext(keyring: keyring, optedOut: optedOut, nowMs: now.unixMilliseconds)
        do {
            let (applied, erased) = try database.writer.write { db -> (Int, [String]) in
                var rollups = RollupBatch()
                var applied = 0
                var erased: [String] = []
                // The durable events kept raw go through the inbox, in one row (per publisher) for the batch.
                let recorded = events.indices.filter { events[$0].1.topic.isDurable && !Self.countedOnly.contains(events[$0].1.topic.name) }
                let keys = recorded.map { InboxKey(events[$0].1.id) }
                let fresh = try ServiceDatabase.recordOnce(keys, consumer: Self.eventConsumer, at: now, in: db)
                let redelivered = Set(zip(recorded, fresh).filter { !$0.1 }.map(\.0))
                for (index, (event, metadata)) in events.enumerated() where !redelivered.contains(index) {
                    applied += 1
                    erased += try Self.apply(event, metadata, context, &rollups, db)
                }
                try rollups.write(db)
                return (applied, erased)
            }
            optedOut.subtract(erased)
            return applied
        } catch {
            logger.error("events not applied; durable ones will be redelivered", metadata: ["events": "\(events.count)", "error": "\(error)"])
            return 0
        }
    }

    /// One event inside the batch's transaction.
    ///
    /// - Returns: opt-out pseudonyms erased (a `UserDeleted`).
    private static func apply(
        _ event: any BusEvent, _ metadata: EventMetadata, _ context: IngestContext, _ rollups: inout RollupBatch, _ db: Database
    ) throws -> [String] {
        let atMs = occurredAt(event) ?? context.nowMs
        let day = Dimensions.day(unixMs: atMs)
        rollups.add(.events, day: day, metadata.topic.name, count: 1)
        guard !countedOnly.contains(metadata.topic.name) else { return [] }
        if let deleted = event as? UserDeleted {
            guard !deleted.userID.isEmpty else { return [] }
            let pseudonyms = context.keyring.all(deleted.userID)
            _ = try erase(pseudonyms, includingOptOut: true, db)
            return pseudonyms
        }
        let scrubbed = EventScrubber.scrub(event)
        let pseudonyms = scrubbed.userID.map(context.keyring.all) ?? []
        let optedOut = pseudonyms.contains { context.optedOut.contains($0) }
        let pseudonym = optedOut ? nil : pseudonyms.first
        switch event {
        case let search as SearchCompleted:
            rollups.add(.searches, day: day, Dimensions.purpose(search.purpose), count: 1, hits: search.cacheHit ? 1 : 0)
        case let call as ProviderCalled:
            rollups.add(.quota, day: day, call.provider, count: 1, hits: call.success ? 1 : 0, quotaLimit: call.quotaLimit)
        case let warning as QuotaWarning:
            rollups.add(.quota, day: day, warning.provider, quotaLimit: warning.limit)
        case let decided as AlertDecided:
            try applyDecision(decided.alert, day: day, pseudonym: pseudonym, atMs: atMs, &rollups, db)
        case let delivered as AlertDelivered where delivered.recheck == .confirmed:
            try applyConfirmed(delivered.alertID, pseudonym: pseudonym, atMs: atMs, db)
        case let change as TierChanged where !optedOut && !pseudonyms.isEmpty:
            try applyTierChange(change, day: day, pseudonyms: pseudonyms, &rollups, db)
        default:
            break
        }
        guard !optedOut else { return [] }
        var json = scrubbed.json
        if let userID = scrubbed.userID, let pseudonym, EventScrubber.occurs(userID, in: json) {
            // A user id inside free text (a reason, a title): replaced too.
            json = json.replacingOccurrences(of: userID, with: pseudonym)
        }
        try ServiceEventRecord(
            id: nil, publisher: metadata.id.publisher, sequence: Int64(bitPattern: metadata.id.sequence), topic: metadata.topic.name,
            atUnixMs: atMs, day: day, pseudonym: pseudonym, payloadJSON: json
        ).append(in: db)
        return []
    }

    /// An alert counts once, in its decision's day; an open seen before it
    /// counts with it. A decision that changes later (a sent alert found
    /// stale just before delivery) moves its count, in the same day.
    private static func applyDecision(_ alert: AlertRecord, day: Int, pseudonym: String?, atMs: Int64, _ rollups: inout RollupBatch, _ db: Database) throws {
        guard !alert.alertID.isEmpty else { return }
        let existing = try AlertSeenRecord.fetchOne(db, key: alert.alertID)
        if var seen = existing, let previous = seen.decision {
            guard previous != alert.decision.rawValue, let decisionDay = seen.decisionDay else { return }
            let hits: Int64 = seen.opened ? 1 : 0
            rollups.add(.alerts, day: decisionDay, Dimensions.decision(AlertDecision(rawValue: previous) ?? .unspecified), count: -1, hits: -hits)
            rollups.add(.alerts, day: decisionDay, Dimensions.decision(alert.decision), count: 1, hits: hits)
            seen.decision = alert.decision.rawValue
            try seen.update(db)
            return
        }
        let opened = existing?.opened ?? false
        rollups.add(.alerts, day: day, Dimensions.decision(alert.decision), count: 1, hits: opened ? 1 : 0)
        let record = AlertSeenRecord(
            alertID: alert.alertID, decision: alert.decision.rawValue, decisionDay: day, opened: opened,
            pseudonym: pseudonym ?? existing?.pseudonym, seenAtUnixMs: atMs, origin: alert.origin, destination: alert.destination,
            recheckConfirmed: existing?.recheckConfirmed ?? false, simulated: alert.simulated
        )
        try record.save(db)
    }

    /// A delivery after a confirming re-check marks its alert (once, for
    /// every device it reached); heard before the decision, it waits in a
    /// row of its own, as an open does.
    private static func applyConfirmed(_ alertID: String, pseudonym: String?, atMs: Int64, _ db: Database) throws {
        guard !alertID.isEmpty else { return }
        guard var seen = try AlertSeenRecord.fetchOne(db, key: alertID) else {
            try AlertSeenRecord(
                alertID: alertID, decision: nil, decisionDay: nil, opened: false, pseudonym: pseudonym, seenAtUnixMs: atMs, origin: "", destination: "",
                recheckConfirmed: true
            ).insert(db)
            return
        }
        guard !seen.recheckConfirmed else { return }
        seen.recheckConfirmed = true
        try seen.update(db)
    }

    /// A trial start is counted in its week; a later change to Pro converts it (once).
    private static func applyTierChange(_ change: TierChanged, day: Int, pseudonyms: [String], _ rollups: inout RollupBatch, _ db: Database) throws {
        let trial = try TrialUserRecord.filter(pseudonyms.contains(Column("pseudonym"))).fetchOne(db)
        switch change.current {
        case .trial where trial == nil:
            let week = Dimensions.isoWeek(day: day)
            try TrialUserRecord(pseudonym: pseudonyms[0], startDay: day, week: week, convertedDay: nil).insert(db)
            rollups.add(.trials, day: day, week, count: 1)
        case .pro:
            guard var trial, trial.convertedDay == nil else { return }
            trial.convertedDay = day
            try trial.update(db)
            rollups.add(.trials, day: trial.startDay, trial.week, hits: 1)
        default:
            break
        }
    }

    /// The event's own time, when its type carries one.
    static func occurredAt(_ event: any BusEvent) -> Int64? {
        let ms: Int64
        switch event {
        case let event as SearchCompleted: ms = event.atUnixMs
        case let event as ProviderCalled: ms = event.atUnixMs
        case let event as QuotaWarning: ms = event.atUnixMs
        case let event as AlertDecided: ms = event.alert.decidedAtUnixMs
        case let event as AlertDelivered: ms = event.deliveredAtUnixMs
        case let event as TierChanged: ms = event.atUnixMs
        case let event as TrialEnding: ms = event.atUnixMs
        case let event as PurchaseRecorded: ms = event.occurredAtUnixMs
        case let event as UserPreferencesChanged: ms = event.atUnixMs
        case let event as UserDeleted: ms = event.atUnixMs
        case let event as WatchlistChanged: ms = event.atUnixMs
        default: ms = 0
        }
        return ms > 0 ? ms : nil
    }
}
