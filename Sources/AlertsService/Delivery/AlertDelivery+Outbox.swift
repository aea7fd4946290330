import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB

/// The durable outbox: what was accepted is delivered, across crashes, once per channel.
extension AlertDelivery {
    /// Alerts handed to channels at the same time at most.
    static let deliveryConcurrency = 16
    /// Rows taken per pass.
    static let deliveryBatch = 256

    /// One row's attempt and what came of it.
    struct Attempt: Sendable {
        var row: OutboxRow
        var outcome: DeliveryOutcome
    }

    /// Passes of ``deliverDue()`` until one finds nothing to attempt (or
    /// another pass is running), so a backlog drains without waiting a tick per batch.
    func deliverAllDue() async {
        while !Task.isCancelled, await deliverDue() > 0 {}
    }

    /// Runs an outbox pass (``deliverOnePass()``), and another after it for
    /// each time one was asked for while it ran; when a pass is already
    /// running, only asks it for one more and returns 0 at once. The actor
    /// may take other calls while a pass awaits: ``OutboxPasses`` keeps
    /// passes from overlapping.
    ///
    /// - Returns: how many attempts this call's passes made.
    @discardableResult
    func deliverDue() async -> Int {
        guard passes.ask() == .runPass else { return 0 }
        var attempts = await deliverOnePass()
        while passes.passEnded() == .runAnotherPass {
            attempts += await deliverOnePass()
        }
        return attempts
    }

    /// One outbox pass: delivers every outbox row that is due (by the transport clock: a
    /// retry's backoff is real time, whatever the business clock does):
    /// re-checks the fare of each alert not yet attempted (a fare that rose
    /// above the alerted price is dropped as `STALE_PRICE`; once an attempt
    /// has left, the alert is at-least-once and never judged again), then
    /// makes one attempt per row on its channel, and
    /// records the outcome: delivered; retried after the backoff (honouring
    /// `Retry-After`); dead-lettered when failed for good or out of attempts;
    /// kept for replay when the endpoint is gone (HTTP 410), which also
    /// disables the channel until an operator replays. Cancelled (the
    /// service stopping), a pass lets the attempts under way finish and
    /// records them, and starts no others: those stay due.
    ///
    /// - Returns: how many attempts were made.
    private func deliverOnePass() async -> Int {
        let now = clock.now()
        let wireMs = transport.now().unixMilliseconds
        let due: [OutboxRow]
        let disabled: Set<Int>
        let alerts: [String: AlertRow]
        let devices: [String: DeviceRow]
        let depth: Int?
        let countingDepth = outboxDepth.map { now.timeIntervalSince($0.at) >= 1 || now < $0.at } ?? true
        do {
            (due, disabled, alerts, devices, depth) = try await database.writer.read { db in
                // The status is a literal so SQLite can use the partial index `outbox_due` (WHERE status = 1).
                let due = try OutboxRow.fetchAll(db.cachedStatement(sql: """
                    SELECT * FROM outbox WHERE status = \(OutboxRow.Status.pending.rawValue) AND nextAttemptAtUnixMs <= ?
                    ORDER BY nextAttemptAtUnixMs LIMIT \(Self.deliveryBatch)
                    """), arguments: [wireMs])
                let disabled = Set(try ChannelStateRow.fetchAll(db).map(\.channel))
                let alerts = try AlertRow.fetchAll(db, keys: Set(due.map(\.alertID)))
                let tokens = Set(due.lazy.filter { $0.channel == AlertChannel.push.rawValue }.map(\.address))
                let devices = tokens.isEmpty ? [] : try DeviceRow.fetchAll(db, keys: tokens)
                let depth = countingDepth ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE status = \(OutboxRow.Status.pending.rawValue)") ?? 0 : nil
                return (
                    due, disabled, Dictionary(alerts.map { ($0.alertID, $0) }, uniquingKeysWith: { first, _ in first }),
                    Dictionary(devices.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first }), depth
                )
            }
        } catch is CancellationError {
            return 0  // the service is stopping: nothing went wrong, and what is due is delivered on the next start
        } catch {
            logger.error("outbox not read; next tick tries again", metadata: ["error": "\(error)"])
            return 0
        }
        if let depth {
            outboxDepth = (depth, now)
            AlertsMetrics.outboxDepth.record(depth)
        }
        guard !due.isEmpty else { return 0 }
        // Re-check each alert's fare once per pass, just before handing it over, 16 searches at a time
        // (one after another, a pass of 256 alerts would wait for 256 searches in a row).
        // Only before the first attempt: after one has left, the receiver may have the alert (``DeliveryOutcome/uncertain(reason:)``).
        let unattempted = Set(due.filter { $0.attempts == 0 && $0.uncertainAttempts == 0 }.map(\.alertID))
            .subtracting(due.filter { $0.attempts > 0 || $0.uncertainAttempts > 0 }.map(\.alertID))
        let toRecheck = unattempted.sorted().compactMap { alerts[$0] }.filter { $0.kindValue != .dailyDigest && !$0.currency.isEmpty }
        let recheck = recheck
        var stale: [String: Money] = [:]
        // What the re-check found for the alerts it did not stop, recorded with the
        // attempt and carried on `AlertDelivered` (the track record's confirmed count).
        var rechecked: [String: RecheckOutcome] = [:]
        await withTaskGroup(of: (String, Money?).self) { group in
            var next = toRecheck.makeIterator()
            func start() {
                guard let alert = next.next() else { return }
                group.addTask { (alert.alertID, await recheck(alert)) }
            }
            for _ in 0..<Self.deliveryConcurrency { start() }
            while let (alertID, current) = await group.next() {
                if let alert = alerts[alertID] {
                    if let current, current.currency == alert.currency {
                        if current.minorUnits > alert.priceMinorUnits { stale[alertID] = current } else { rechecked[alertID] = .confirmed }
                    } else {
                        rechecked[alertID] = .unconfirmed
                    }
                }
                start()
            }
        }
        var skipped: [OutboxRow] = []
        var attempts: [Attempt] = []
        let channels = Dictionary(self.channels.map { ($0.channel.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
        let toSend = due.filter { row in
            if stale[row.alertID] != nil || disabled.contains(row.channel) || channels[row.channel] == nil || Self.deviceLeft(row, devices) {
                skipped.append(row)
                return false
            }
            return true
        }
        await withTaskGroup(of: Attempt.self) { group in
            var next = toSend.makeIterator()
            func start() {
                // Stopping: the attempts under way finish and are recorded; the rest stay due for the next start
                // (at 16 at a time, each up to the channel's timeout, a whole pass could hold a stop for minutes).
                guard !Task.isCancelled, let row = next.next(), let channel = channels[row.channel] else { return }
                let outbound = Self.outbound(row, alert: alerts[row.alertID], device: devices[row.address])
                group.addTask {
                    // Not cancelled with the service: a graceful stop lets the attempt finish (bounded by the
                    // channel's timeout) and records it, instead of retrying one the receiver may have taken.
                    let attempt = Task { await channel.deliver(outbound) }
                    return Attempt(row: row, outcome: await attempt.value)
                }
            }
            for _ in 0..<Self.deliveryConcurrency { start() }
            while let attempt = await group.next() {
                attempts.append(attempt)
                start()
            }
        }
        await record(attempts, skipped: skipped, stale: stale, rechecked: rechecked, disabled: disabled, alerts: alerts, devices: devices)
        return attempts.count
    }

    /// Writes the outcomes (one transaction, ``ServiceDatabase/writeToEnd(_:)``), then
    /// publishes the events that tell of them.
    private func record(
        _ attempts: [Attempt], skipped: [OutboxRow], stale: [String: Money], rechecked: [String: RecheckOutcome], disabled: Set<Int>,
        alerts: [String: AlertRow], devices: [String: DeviceRow]
    ) async {
        let now = clock.now()
        let nowMs = now.unixMilliseconds
        // When a retry is due is real time (the backoff and Retry-After are the wire's); the record times are the business clock's.
        let wireMs = transport.now().unixMilliseconds
        var updatedRows: [OutboxRow] = []
        var newlyDisabled: [ChannelStateRow] = []
        var gone: [DeviceGone] = []
        for attempt in attempts {
            var row = attempt.row
            row.attempts += 1
            switch attempt.outcome {
            case .delivered:
                row.status = .delivered
                row.finishedAtUnixMs = nowMs
                row.lastError = ""
            case .retry(let reason, let retryAfter):
                schedule(&row, after: reason, retryAfter: retryAfter, wireMs: wireMs, nowMs: nowMs)
            case .uncertain(let reason):
                row.uncertainAttempts += 1
                schedule(&row, after: reason, retryAfter: nil, wireMs: wireMs, nowMs: nowMs)
            case .failed(let reason):
                row.status = .deadLettered
                row.lastError = reason
                row.finishedAtUnixMs = nowMs
            case .endpointGone(let reason):
                row.status = .endpointDisabled
                row.lastError = reason
                row.finishedAtUnixMs = nowMs
                newlyDisabled.append(ChannelStateRow(channel: row.channel, disabledAtUnixMs: nowMs, reason: reason))
            case .deviceGone(let reason, let invalidSince):
                row.status = .deviceRemoved
                row.lastError = reason
                row.finishedAtUnixMs = nowMs
                gone.append(DeviceGone(userID: row.userID, token: row.address, reason: reason, invalidSinceUnixMs: invalidSince?.unixMilliseconds))
            }
            updatedRows.append(row)
        }
        for var row in skipped {
            if let current = stale[row.alertID], let alert = alerts[row.alertID] {
                row.status = .droppedStale
                row.lastError = "price rose to \(current.headline) (alerted at \(alert.price.headline))"
            } else if Self.deviceLeft(row, devices) {
                row.status = .deviceRemoved
                row.lastError = "device no longer registered to this user; not sent"
            } else {
                row.status = .endpointDisabled
                row.lastError = disabled.contains(row.channel) ? "channel disabled (HTTP 410 earlier); replay to send" : "channel not configured"
            }
            row.finishedAtUnixMs = nowMs
            updatedRows.append(row)
        }
        let removed: [DeviceGone]
        do {
            // Not cancelled by a graceful stop: the attempts were made, and what is not recorded is sent again after a restart.
            removed = try await database.writeToEnd { [updatedRows, newlyDisabled, stale, rechecked, gone, decidedEvents] db in
                try Self.writeOutcomes(updatedRows, newlyDisabled: newlyDisabled, stale: stale, rechecked: rechecked, announcingTo: decidedEvents, in: db)
                return try Self.recordDevices(updatedRows, gone: gone, at: nowMs, in: db)
            }
        } catch {
            // Not recorded: the rows stay pending and are attempted again (a receiver de-duplicates on webhook-id).
            logger.error("delivery outcomes not recorded; they will be attempted again", metadata: ["rows": "\(updatedRows.count)", "error": "\(error)"])
            return
        }
        for state in newlyDisabled {
            logger.error("channel disabled by its endpoint; `farelensctl alerts replay` re-enables it", metadata: ["channel": "\(state.channel)", "reason": "\(state.reason)"])
        }
        for (reason, devices) in Dictionary(grouping: removed, by: \.eventReason) {
            announceRemoved(devices.map { ($0.userID, $0.token) }, reason: reason)
        }
        publishOutcomes(attempts, updatedRows: updatedRows, recheck: { rechecked[$0] ?? alerts[$0]?.recheckValue ?? .unspecified }, at: nowMs)
    }

    /// After a failed attempt: the next one after the backoff (real time
    /// from `wireMs`), or a dead letter when the backoff gives up, saying
    /// when an attempt may have arrived.
    private func schedule(_ row: inout OutboxRow, after reason: String, retryAfter: Duration?, wireMs: Int64, nowMs: Int64) {
        row.lastError = reason
        if let delay = backoff(row.attempts, retryAfter) {
            row.nextAttemptAtUnixMs = wireMs + Self.milliseconds(delay)
            return
        }
        row.status = .deadLettered
        row.lastError = "\(reason); gave up after \(row.attempts) attempts"
        if row.uncertainAttempts > 0 {
            row.lastError += " (\(row.uncertainAttempts) left without an answer: the receiver may have it)"
        }
        row.finishedAtUnixMs = nowMs
    }

    /// The transaction of ``record(_:skipped:stale:rechecked:disabled:alerts:devices:)``: the
    /// rows' new states, channels newly disabled, each alert's delivery
    /// summary (a stale one re-decided as `STALE_PRICE`, under a new
    /// decision sequence: its `AlertDecided` is published again) and what
    /// its re-check found (kept for the attempts after the first).
    private static func writeOutcomes(
        _ updatedRows: [OutboxRow], newlyDisabled: [ChannelStateRow], stale: [String: Money], rechecked: [String: RecheckOutcome],
        announcingTo outbox: DecidedAlerts, in db: Database
    ) throws {
        // Cached statements: a pass records up to 256 outcomes.
        let updateRow = try db.cachedStatement(sql: """
            UPDATE outbox SET status = ?, attempts = ?, nextAttemptAtUnixMs = ?, lastError = ?, finishedAtUnixMs = ?, uncertainAttempts = ?
            WHERE alertID = ? AND channel = ? AND address = ?
            """)
        // Bound through SQLite's C interface, like the rows the decisions write (decision 0007).
        for row in updatedRows {
            try updateRow.executeBinding { values in
                values.bind(row.status.rawValue); values.bind(row.attempts); values.bind(row.nextAttemptAtUnixMs); values.bind(row.lastError)
                values.bind(row.finishedAtUnixMs); values.bind(row.uncertainAttempts); values.bind(row.alertID); values.bind(row.channel)
                values.bind(row.address)
            }
        }
        for state in newlyDisabled { try state.save(db) }
        let updateAlert = try db.cachedStatement(sql: "UPDATE alert SET deliveryState = ?, deliveryError = ?, attempts = ?, deliveredAtUnixMs = ? WHERE alertID = ?")
        let updateRecheck = try db.cachedStatement(sql: "UPDATE alert SET recheck = ? WHERE alertID = ?")
        var changed: [AlertRow] = []
        var sequences = try DecisionSequences(in: db)
        let alertIDs = Set(updatedRows.map(\.alertID)).sorted()
        let outcomes = try OutboxRow.outcomes(ofAlerts: alertIDs, in: db)
        for alertID in alertIDs {
            let summary = DeliverySummary(outcomes[alertID] ?? [])
            if let current = stale[alertID], var alert = try AlertRow.fetchOne(db, key: alertID) {
                alert.decision = AlertDecision.stalePrice.rawValue
                alert.reason = "Re-checked just before delivery: the fare rose to \(current.headline) (alerted at \(alert.price.headline)); not sent"
                alert.apply(summary)
                try alert.update(db)
                try db.execute(sql: "UPDATE alert SET rowid = ? WHERE alertID = ?", arguments: [sequences.take(), alertID])
                changed.append(alert)
            } else {
                try updateAlert.executeBinding { values in
                    values.bind(summary.state.rawValue); values.bind(summary.error); values.bind(summary.attempts); values.bind(summary.deliveredAtUnixMs)
                    values.bind(alertID)
                }
                if let outcome = rechecked[alertID] {
                    try updateRecheck.executeBinding { values in values.bind(outcome.rawValue); values.bind(alertID) }
                }
            }
        }
        try sequences.save(announcing: changed, to: outbox, in: db)
    }

    private func publishOutcomes(_ attempts: [Attempt], updatedRows: [OutboxRow], recheck: (String) -> RecheckOutcome, at nowMs: Int64) {
        let byKey = Dictionary(updatedRows.map { ("\($0.alertID)/\($0.channel)/\($0.address)", $0) }, uniquingKeysWith: { first, _ in first })
        for attempt in attempts where attempt.row.kind != AlertKind.watchlistUpdate.rawValue {
            // A silent update is not an alert: the device's last outcome records it, no alert event does.
            guard let row = byKey["\(attempt.row.alertID)/\(attempt.row.channel)/\(attempt.row.address)"] else { continue }
            if row.status == .delivered {
                var event = AlertDelivered()
                event.alertID = row.alertID
                event.userID = row.userID
                event.kind = AlertKind(rawValue: row.kind) ?? .unspecified
                event.channel = row.channelValue
                event.attempts = Int32(row.attempts)
                event.deliveredAtUnixMs = nowMs
                event.deviceToken = row.address
                event.recheck = recheck(row.alertID)
                _ = events.enqueue(event)
            } else {
                var event = AlertDeliveryFailed()
                event.alertID = row.alertID
                event.userID = row.userID
                event.channel = row.channelValue
                event.attempts = Int32(row.attempts)
                event.error = row.lastError
                event.retryAtUnixMs = row.status == .pending ? row.nextAttemptAtUnixMs : 0
                event.deviceToken = row.address
                _ = events.enqueue(event)
            }
        }
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
