import FareLensBus
import FareLensMessages
import FareLensStore
import Foundation
import GRDB

/// Deciding: candidates → policy → recorded decisions and outbox rows, in one transaction.
extension AlertsService {
    /// Decides the candidates of `pending` events, each event exactly once
    /// (the inbox): for each user, the candidates of this batch compete
    /// (highest queue score first) under the policy; every decision is
    /// recorded with its reason and content; a `SENT` one is put into the
    /// outbox for every channel in the same transaction; a held or capped
    /// one waits for the user's next digest. `AlertDecided` is published
    /// after the commit.
    ///
    /// Users the subscription service does not know are skipped (logged).
    /// While subscription cannot be asked, this waits and asks again (the
    /// events stay unacknowledged) until it answers or the task is cancelled.
    ///
    /// - Returns: the recorded decisions.
    @discardableResult
    func decide(_ pending: [PendingEvent]) async -> [AlertRow] {
        let userIDs = Set(pending.flatMap { $0.candidates.map(\.userID) }).sorted()
        // One after another: asking all of a batch's users at once in a task group was slower on
        // 2 cores (1.8 ms against 1.1 ms for 256 users, measured in the decisions benchmark).
        var recipients: [String: AlertRecipient] = [:]
        for userID in userIDs {
            guard let recipient = await recipientWaiting(userID) else { continue }
            recipients[userID] = recipient
        }
        // City names for the wording, and metros so that LON→EDI and LHR→EDI are one route for mutes and dedupe.
        for code in Set(pending.flatMap { $0.candidates.flatMap { [$0.origin, $0.destination] } }) where !code.isEmpty { _ = await city(of: code) }
        let now = clock.now()
        let cities = cities
        let metros = metros
        let known = recipients
        let channelKinds = channels.map(\.channel.rawValue)
        let rows: [AlertRow]
        do {
            rows = try await database.writer.write { db in
                var byUser: [String: [AlertCandidate]] = [:]
                for event in pending where try ServiceDatabase.recordOnce(event.key, consumer: event.consumer, at: now, in: db) {
                    for candidate in event.candidates where known[candidate.userID] != nil {
                        byUser[candidate.userID, default: []].append(candidate)
                    }
                }
                var rows: [AlertRow] = []
                var states = try AlertRow.states(of: byUser.keys.compactMap { known[$0] }, at: now, metros: metros, in: db)
                for (userID, candidates) in byUser.sorted(by: { $0.key < $1.key }) {
                    guard let recipient = known[userID], var state = states.removeValue(forKey: userID) else { continue }
                    for outcome in AlertPolicy.decide(candidates, for: recipient, state: &state, at: now) {
                        let content = AlertWording.content(for: outcome.candidate, city: cities[outcome.candidate.destination] ?? outcome.candidate.destination, at: now)
                        let row = AlertRow(outcome, recipient: recipient, content: content, id: Self.newAlertID(at: now), at: now)
                        try row.insertFast(db)
                        if row.decisionValue == .sent { try Self.enqueue(row, channels: channelKinds, at: now, in: db) }
                        rows.append(row)
                    }
                }
                return rows
            }
        } catch {
            logger.error("alert decisions not recorded; the events will be redelivered", metadata: ["events": "\(pending.count)", "error": "\(error)"])
            return []
        }
        for row in rows { publishDecided(row); AlertsMetrics.decided(row.decisionValue) }
        if rows.contains(where: { $0.decisionValue == .sent }) { acceptedContinuation.yield() }
        return rows
    }

    /// Puts `row` into the outbox once per channel, due now, with its payload fixed.
    static func enqueue(_ row: AlertRow, channels: [Int], at now: Date, in db: Database) throws {
        let body = try AlertPayload(row).json()
        let statement = try db.cachedStatement(sql: """
            INSERT INTO outbox (alertID, channel, userID, kind, body, status, attempts, nextAttemptAtUnixMs, lastError, createdAtUnixMs, finishedAtUnixMs)
            VALUES (?, ?, ?, ?, ?, ?, 0, ?, '', ?, 0)
            """)
        for channel in channels {
            try statement.execute(arguments: [row.alertID, channel, row.userID, row.kind, body, OutboxRow.Status.pending.rawValue, now.unixMilliseconds, now.unixMilliseconds])
        }
    }

    func publishDecided(_ row: AlertRow) {
        var event = AlertDecided()
        event.alert = row.message
        _ = events.enqueue(event)
    }

    /// The user's settings from subscription, asking again every second while it cannot be asked; nil for an unknown user or on cancellation.
    func recipientWaiting(_ userID: String) async -> AlertRecipient? {
        var request = GetUserRequest()
        request.userID = userID
        var attempt = 0
        while !Task.isCancelled {
            do {
                let answer = try await bus.request(request)
                return AlertRecipient(user: answer.user, entitlements: answer.entitlements)
            } catch {
                if error.kind == .remote, error.remoteCode == "unknown-user" {
                    logger.notice("alert for an unknown user skipped", metadata: ["user": "\(userID)"])
                    return nil
                }
                if attempt % 10 == 0 { logger.warning("subscription unavailable; alert decisions wait", metadata: ["user": "\(userID)", "error": "\(error)"]) }
                attempt += 1
                try? await Task.sleep(for: .seconds(1))  // safe: waiting for subscription to come back; ends on cancellation
            }
        }
        return nil
    }
}

extension AlertRow {
    /// The recorded form of one policy outcome.
    init(_ outcome: AlertPolicy.Outcome, recipient: AlertRecipient, content: AlertContent, id: String, at now: Date) {
        let candidate = outcome.candidate
        let waitsForDigest = outcome.decision == .held || outcome.decision == .capped
        self.init(
            alertID: id, userID: candidate.userID, kind: candidate.kind.rawValue, decision: outcome.decision.rawValue, reason: outcome.reason,
            origin: candidate.origin, destination: candidate.destination, dealID: candidate.dealID, watchlistID: candidate.watchlistID,
            currency: candidate.price.currency, priceMinorUnits: candidate.price.minorUnits, dealScore: Int(candidate.dealScore),
            queueScore: candidate.queueScore, title: content.title, body: content.body,
            actions: content.actions.map { String($0.rawValue) }.joined(separator: ","),
            decidedAtUnixMs: now.unixMilliseconds, localDay: QuietHoursWindow.localDay(now, in: recipient.zone).description,
            quietException: outcome.quietException,
            deliveryState: (outcome.decision == .sent ? DeliveryState.pending : .notQueued).rawValue, deliveryError: "", attempts: 0,
            deliveredAtUnixMs: 0,
            digestDueAtUnixMs: waitsForDigest ? recipient.quietHours.nextEnd(after: now, in: recipient.zone).unixMilliseconds : 0,
            digestAlertID: "", departureDate: candidate.departureDate?.description ?? "", returnDate: candidate.returnDate?.description ?? "",
            cabin: candidate.cabin.rawValue, tier: recipient.tier.rawValue, simulated: candidate.simulated)
    }
}
