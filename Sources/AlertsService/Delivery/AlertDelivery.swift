import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import Logging

/// The alerts service's delivery actor: the durable outbox (docs/alerts.md),
/// its channels and their retries, the device registry and silent pushes.
///
/// It owns the tables `outbox` (after a row's insert), `channel_state` and
/// `device`. Intake (``AlertsService``) and the digest (``AlertDigest``)
/// insert outbox rows in the transaction that accepts their alerts — so
/// none is lost between a decision and its delivery — and then ``poke()``
/// this actor; every change of a row after that is made here. The rows of
/// silent pushes, which are no alerts, it inserts itself.
actor AlertDelivery: AlertsTables {
    /// Looks a fare up again just before delivery: the lowest current price
    /// per person for the alert's route, dates and cabin, or nil when it
    /// cannot be known (no dates, search unavailable, stale prices).
    typealias PriceRecheck = @Sendable (AlertRow) async -> Money?
    /// The delay before the next attempt after `attempt` failed, honouring a
    /// receiver's `Retry-After`; nil when no attempt is left (dead letter).
    typealias Backoff = @Sendable (_ attempt: Int, _ retryAfter: Duration?) -> Duration?

    let database: ServiceDatabase
    let clock: any WallClock
    /// Real time, for the wire: when a retry is due (``deliverDue()``).
    let transport: TransportClock
    /// `AlertDelivered`, `AlertDeliveryFailed` and `DeviceRemoved`, at most once by design.
    let events: DeferredPublisher
    /// `AlertDecided` again when a re-check finds an alert's price stale (its decision becomes `STALE_PRICE`).
    nonisolated let decidedEvents: DecidedAlerts
    let channels: [any AlertDeliveryChannel]
    let recheck: PriceRecheck
    let backoff: Backoff
    let logger: Logger
    /// Whether an outbox pass runs (two never overlap) and whether another was asked for meanwhile.
    var passes = OutboxPasses()
    /// The outbox's pending rows as last counted, and when (the gauge
    /// `farelens_alerts_outbox_pending`). Counted by a delivery pass at most
    /// once a second: the count reads every pending row's index entry, and
    /// while a backlog drains a pass starts every few milliseconds.
    var outboxDepth: (pending: Int, at: Date)?
    /// Poked after alerts are accepted, so they go out at once rather than at the next tick.
    private let acceptedSignal: AsyncStream<Void>
    private let acceptedContinuation: AsyncStream<Void>.Continuation

    init(
        database: ServiceDatabase, clock: any WallClock, transport: TransportClock, events: DeferredPublisher, decidedEvents: DecidedAlerts,
        channels: [any AlertDeliveryChannel], recheck: @escaping PriceRecheck, backoff: @escaping Backoff,
        logger: Logger
    ) {
        self.database = database
        self.clock = clock
        self.transport = transport
        self.events = events
        self.decidedEvents = decidedEvents
        self.channels = channels
        self.recheck = recheck
        self.backoff = backoff
        self.logger = logger
        (self.acceptedSignal, self.acceptedContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether a push channel is configured (silent pushes are followed only then).
    nonisolated var pushes: Bool { channels.contains { $0.channel == .push } }

    /// Outbox rows were inserted: a pass runs soon, without waiting for the next tick.
    nonisolated func poke() {
        acceptedContinuation.yield()
    }

    /// Runs an outbox pass after each ``poke()``, until ``finish()``.
    func followPokes() async {
        for await _ in acceptedSignal { await deliverAllDue() }
    }

    /// Ends ``followPokes()``.
    nonisolated func finish() {
        acceptedContinuation.finish()
    }
}
