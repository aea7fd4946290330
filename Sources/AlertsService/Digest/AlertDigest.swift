import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging

/// The alerts service's digest actor: held and capped alerts, sent together
/// when the user's quiet hours end.
///
/// It owns the held alerts' digest columns (`digestDueAtUnixMs`,
/// `digestAlertID`, their `IN_DIGEST` state) once intake has set them, and
/// inserts each digest's own alert and outbox rows in the same transaction,
/// then pokes delivery.
actor AlertDigest: AlertsTables {
    let database: ServiceDatabase
    let clock: any WallClock
    /// The channels a digest goes out on (each gets an outbox row).
    let channelKinds: [Int]
    /// `AlertDecided` for each digest, published from its row.
    nonisolated let decidedEvents: DecidedAlerts
    let delivery: AlertDelivery
    let logger: Logger

    init(database: ServiceDatabase, clock: any WallClock, channelKinds: [Int], decidedEvents: DecidedAlerts, delivery: AlertDelivery, logger: Logger) {
        self.database = database
        self.clock = clock
        self.channelKinds = channelKinds
        self.decidedEvents = decidedEvents
        self.delivery = delivery
        self.logger = logger
    }

    /// Sends every digest that is due: for each user with held or capped
    /// alerts whose digest time (the end of their quiet hours after the
    /// decision) has come, one `DAILY_DIGEST` alert carrying them, best first,
    /// into the outbox; the carried alerts are marked `IN_DIGEST`. A paused
    /// user's digest waits until the pause ends.
    ///
    /// - Returns: the digests sent.
    @discardableResult
    func sendDueDigests() async -> [AlertRow] {
        let now = clock.now()
        let nowMs = now.unixMilliseconds
        let channelKinds = channelKinds
        let digests: [AlertRow]
        do {
            let decidedEvents = decidedEvents
            digests = try await database.writer.write { db in
                let due = try String.fetchAll(db, sql: "SELECT DISTINCT userID FROM alert WHERE digestDueAtUnixMs > 0 AND digestDueAtUnixMs <= ? ORDER BY userID", arguments: [nowMs])
                var digests: [AlertRow] = []
                var sequences = try DecisionSequences(in: db)
                for userID in due {
                    if let pause = try AlertPauseRow.fetchOne(db, key: userID), pause.pausedUntilUnixMs > nowMs { continue }
                    let carried = try AlertRow.filter(Column("userID") == userID && Column("digestDueAtUnixMs") > 0 && Column("digestDueAtUnixMs") <= nowMs)
                        .order(Column("queueScore").desc, Column("priceMinorUnits"), Column("decidedAtUnixMs")).fetchAll(db)
                    guard let first = carried.first else { continue }
                    let content = AlertWording.digest(carried.map(\.title))
                    var digest = AlertRow(digestOf: carried, content: content, id: AlertsService.newAlertID(at: now), at: now, template: first)
                    try digest.insertFast(db, sequence: sequences.take())
                    try AlertsService.enqueue(digest, channels: channelKinds, carried: carried.map(\.alertID), at: now, in: db)
                    for var row in carried {
                        row.digestDueAtUnixMs = 0
                        row.digestAlertID = digest.alertID
                        row.deliveryState = DeliveryState.inDigest.rawValue
                        try row.update(db)
                    }
                    digest.digestDueAtUnixMs = 0
                    digests.append(digest)
                }
                try sequences.save(announcing: digests, to: decidedEvents, in: db)
                return digests
            }
        } catch is CancellationError {
            return []  // the service is stopping: nothing went wrong, and what is due is sent on the next start
        } catch {
            logger.error("digests not sent; next tick tries again", metadata: ["error": "\(error)"])
            return []
        }
        if !digests.isEmpty { delivery.poke() }
        return digests
    }
}

extension AlertRow {
    /// A digest carrying `carried` (best first). Its `localDay` is the best
    /// carried alert's (the user's zone is not asked again here); digests do
    /// not count toward the daily cap, the only reader of that day.
    init(digestOf carried: [AlertRow], content: AlertContent, id: String, at now: Date, template: AlertRow) {
        self.init(
            alertID: id, userID: template.userID, kind: AlertKind.dailyDigest.rawValue, decision: AlertDecision.sent.rawValue,
            reason: "Daily digest of \(carried.count) held or capped alert\(carried.count == 1 ? "" : "s")",
            origin: "", destination: "", dealID: "", watchlistID: "", currency: "", priceMinorUnits: 0, dealScore: 0,
            queueScore: template.queueScore, title: content.title, body: content.body,
            actions: AlertRow.column(content.actions),
            decidedAtUnixMs: now.unixMilliseconds, localDay: template.localDay, quietException: false,
            deliveryState: DeliveryState.pending.rawValue, deliveryError: "", attempts: 0, deliveredAtUnixMs: 0,
            digestDueAtUnixMs: 0, digestAlertID: "", departureDate: "", returnDate: "", cabin: 0, tier: template.tier,
            simulated: carried.contains(where: \.simulated))
    }
}
