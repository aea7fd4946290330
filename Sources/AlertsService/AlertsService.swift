import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging

/// The alerts service's intake actor: the alert policy of SPEC § 5, every
/// decision recorded with its reason, and the user's alert settings (mutes,
/// pauses). Delivery (``AlertDelivery``: the outbox, channels, retries,
/// devices) and the daily digest (``AlertDigest``) are actors of their own,
/// which this one builds and runs (docs/alerts.md, "Three actors").
///
/// Its tables in `alerts.sqlite` are `alert` (decisions), `route_mute`,
/// `alert_pause` and `set_aside_event`; it inserts the outbox rows of the
/// alerts it accepts in the same transaction. It follows `ExceptionalDeal`,
/// `ThresholdCrossed`, `PriceChanged` and `TrialEnding` through the inbox
/// (exactly once), as one stream so that they compete for a user's cap
/// whatever their topic; it keeps the users' alert settings and who an
/// exceptional deal can reach from subscription's and watchlist's events
/// (``KeptAudience``: nothing is asked of them when a batch is decided),
/// asks search's airport directory for city names, and erases a user's
/// alerts on `UserDeleted`.
///
/// `run()` publishes queued events, follows those topics, and every
/// `deliveryTick` has the digest send what is due and delivery pass over
/// the outbox; the first tick runs at once, so an alert accepted before a
/// crash is delivered on start.
actor AlertsService: ServiceBehaviour, AlertsTables {
    private enum State {
        /// Built, `run()` not yet called.
        case idle
        /// `run()` is following events and delivering.
        case running
        /// `run()` returned.
        case stopped
    }

    private var state = State.idle
    let database: ServiceDatabase
    let bus: MessageBus
    let clock: any WallClock
    /// Real time: how long to wait before asking an away neighbour again.
    let transport: TransportClock
    /// Events published at most once by design (set-aside events, delivery's outcomes, removed devices).
    let events: DeferredPublisher
    /// `AlertDecided`, published from the decisions' rows (``DecidedAlertsStore``):
    /// none is lost between a decision's commit and its publish.
    nonisolated let decidedEvents: DecidedAlerts
    /// The channels' kinds: an accepted alert gets an outbox row for each.
    let channelKinds: [Int]
    /// The outbox, its channels and retries, devices and silent pushes.
    let delivery: AlertDelivery
    /// The daily digest.
    let digest: AlertDigest
    let deliveryTick: Duration
    /// Decisions older than this are deleted (`alerts.retentionDays`).
    let retention: TimeInterval
    /// When the last retention pass ran (clock time).
    var lastRetention: Date?
    let logger: Logger
    /// City names by airport code, from search's directory.
    var cities: [String: String] = [:]
    /// Metro codes by airport code, from the same answers ("" for an airport in no metro).
    var metros: [String: String] = [:]
    /// The users whose policy state a batch reads from the database; the rest start empty.
    nonisolated let usersWithState = UsersWithPolicyState()
    /// Search's exchange rates, for "≈" in the recipient's currency (asked at most every 10 minutes of the clock).
    nonisolated let exchangeRates: ExchangeRatesCache
    /// Exceptional deals, threshold crossings, price changes and trial
    /// endings in one queue, in the order they arrived: one stream of
    /// decisions, whose batches gather for `gathering`.
    private let decisionStream: EventSubscription<any BusEvent>
    /// The decision stream's gathering window (`alerts.gatherMilliseconds`).
    let gathering: Duration
    private let deletions: EventSubscription<UserDeleted>
    /// Who an exceptional deal can reach (users' preferred airports, watchlists), kept from events.
    nonisolated let audience: KeptAudience
    private let audienceEvents: KeptAudience.Subscriptions
    /// Each route's track record, for pushes, kept from analytics' events.
    nonisolated let trackRecords: KeptTrackRecords
    private let trackRecordEvents: EventSubscription<RouteTrackRecordChanged>
    /// `PriceChanged` and `WatchlistChanged`, for silent pushes; nil without a push channel.
    private let watchlistUpdates: EventSubscription<any BusEvent>?
    /// Returns once the node has joined the others: the audience's wanted
    /// announcements are asked for then (``WantedAnnouncements``).
    let joined: @Sendable () async -> Void

    /// Inbox consumer names.
    static let dealConsumer = "alerts.exceptional-deal"
    static let crossingConsumer = "alerts.threshold-crossed"
    static let priceConsumer = "alerts.price-changed"
    static let trialConsumer = "alerts.trial-ending"
    /// Events decided together at most (one batch, one transaction).
    static let batchSize = 1024
    /// The events that make candidates (``pendingEvents(_:)``), each with its inbox consumer.
    static let decisionInputs: [(consumer: String, type: any BusEvent.Type)] = [
        (dealConsumer, ExceptionalDeal.self), (crossingConsumer, ThresholdCrossed.self), (priceConsumer, PriceChanged.self), (trialConsumer, TrialEnding.self),
    ]
    /// ``decisionInputs``' types.
    // A closure, not `\.type`: a key path over an existential metatype crashes Swift 6.3.1's compiler.
    static let decisionInputTypes: [any BusEvent.Type] = decisionInputs.map { $0.type }

    /// The event type whose inbox consumer is `consumer`; nil for another name.
    static func decisionInputType(ofConsumer consumer: String) -> (any BusEvent.Type)? {
        decisionInputs.first { $0.consumer == consumer }?.type
    }

    init(
        database: ServiceDatabase, bus: MessageBus, clock: any WallClock, transport: TransportClock = .system, channels: [any AlertDeliveryChannel],
        backoff: @escaping AlertDelivery.Backoff, recheck: AlertDelivery.PriceRecheck? = nil, deliveryTick: Duration = .seconds(1),
        retention: TimeInterval = 90 * 86_400, gathering: Duration = AlertDeliverySettings.defaultGatheringWindow,
        joined: @escaping @Sendable () async -> Void = {}, logger: Logger
    ) {
        self.joined = joined
        self.database = database
        self.bus = bus
        self.clock = clock
        self.transport = transport
        let events = DeferredPublisher(bus: bus, owner: "alerts", logger: logger)
        let decidedEvents = DecidedAlerts(database: database, bus: bus, batchSize: Self.batchSize, transport: transport, logger: logger)
        self.events = events
        self.decidedEvents = decidedEvents
        let channelKinds = channels.map(\.channel.rawValue)
        self.channelKinds = channelKinds
        let delivery = AlertDelivery(
            database: database, clock: clock, transport: transport, events: events, decidedEvents: decidedEvents, channels: channels,
            recheck: recheck ?? { row in await AlertDelivery.searchRecheck(row, bus: bus, now: clock.now()) }, backoff: backoff, logger: logger)
        self.delivery = delivery
        self.digest = AlertDigest(database: database, clock: clock, channelKinds: channelKinds, decidedEvents: decidedEvents, delivery: delivery, logger: logger)
        self.exchangeRates = ExchangeRatesCache(now: { clock.now().timeIntervalSince1970 })
        self.deliveryTick = deliveryTick
        self.retention = retention
        self.gathering = gathering
        self.logger = logger
        // Subscribed here, before the node's hello, so the topics are routed to this node from the start.
        self.decisionStream = bus.subscribe(Self.decisionInputTypes)
        self.deletions = bus.subscribe(UserDeleted.self)
        self.audience = KeptAudience(database: database, transport: transport, logger: logger)
        self.audienceEvents = KeptAudience.Subscriptions(on: bus)
        self.trackRecords = KeptTrackRecords(database: database, logger: logger)
        self.trackRecordEvents = bus.subscribe(RouteTrackRecordChanged.self)
        self.watchlistUpdates = delivery.pushes ? bus.subscribe([PriceChanged.self, WatchlistChanged.self, TierChanged.self]) : nil
        AlertsMetrics.makeAll()
    }

    nonisolated func register(on bus: MessageBus) throws {
        try bus.serve(AlertHistoryRequest.self) { request, _ in try await self.history(request) }
        try bus.serve(MuteRouteRequest.self) { request, _ in try await self.mute(request) }
        try bus.serve(UnmuteRouteRequest.self) { request, _ in try await self.unmute(request) }
        try bus.serve(PauseAlertsRequest.self) { request, _ in try await self.pause(request) }
        try bus.serve(ResumeAlertsRequest.self) { request, _ in try await self.resume(request) }
        try bus.serve(AlertSettingsRequest.self) { request, _ in try await self.settings(request) }
        try bus.serve(ReplayAlertsRequest.self) { request, _ in try await self.delivery.replay(request) }
        try bus.serve(SetAsideEventsRequest.self) { _, _ in try await self.setAsideEvents() }
        try bus.serve(RetrySetAsideRequest.self) { request, _ in try await self.retrySetAside(request) }
        try bus.serve(RegisterDeviceRequest.self) { request, _ in try await self.delivery.registerDevice(request) }
        try bus.serve(UnregisterDeviceRequest.self) { request, _ in try await self.delivery.unregisterDevice(request) }
        try bus.serve(ListDevicesRequest.self) { request, _ in try await self.delivery.listDevices(request) }
    }

    /// Follows the inputs, sends due digests and delivers the outbox every
    /// `deliveryTick`, until cancelled; then publishes what is still queued and returns.
    func run() async throws {
        guard case .idle = state else { return }
        state = .running
        defer { state = .stopped }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.events.run() }
            group.addTask { await self.decidedEvents.run() }
            group.addTask { await self.follow(self.decisionStream) }
            group.addTask { for await delivery in self.deletions { await self.erase(delivery.event.userID) } }
            group.addTask { await self.audience.follow(self.audienceEvents) }
            // Started without the audience (a new database: this node may have joined after it was made): asked for.
            group.addTask {
                await WantedAnnouncements.ask(consumer: "alerts", database: self.database, bus: self.bus, joined: self.joined, logger: self.logger)
            }
            group.addTask { await self.trackRecords.follow(self.trackRecordEvents) }
            if let updates = self.watchlistUpdates { group.addTask { await self.delivery.followWatchlistUpdates(updates) } }
            group.addTask { await self.delivery.followPokes() }
            group.addTask {
                while !Task.isCancelled {
                    await self.digest.sendDueDigests()
                    await self.delivery.deliverAllDue()
                    await self.applyRetentionIfDue()
                    try? await self.clock.sleep(for: self.deliveryTick)  // safe: the clock's time, the outbox's polling tick (tests call deliverDue directly); ends on cancellation
                }
                self.delivery.finish()
                self.decisionStream.cancel()
                self.deletions.cancel()
                self.audienceEvents.cancel()
                self.trackRecordEvents.cancel()
                self.watchlistUpdates?.cancel()
                self.events.finish()
            }
        }
    }

    // MARK: Helpers

    /// "a", the decision time in 12 hex digits of Unix milliseconds, and 16
    /// random hex digits: ordered by time, so new rows go to the end of the
    /// primary-key index instead of a random page (decisions are recorded by
    /// the thousand), and unique even when thousands share one millisecond —
    /// a batch is decided at one instant, and a demo's stopped clock reads
    /// the same instant for ever. (8 random digits collided: 100,000
    /// decisions in one millisecond expect one collision at 32 bits,
    /// 3 × 10⁻¹⁰ at 64.)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func newAlertID(at instant: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        return newAlertID(at: instant, random: generator.next())
    }

    /// An id whose last 16 digits are `random`. A batch draws one random
    /// number and counts up from it (one `getrandom` call per decision was
    /// measurable): two batches in the same millisecond collide only if their
    /// draws fall within a batch's size of each other, about 10⁻¹⁶.
    static func newAlertID(at instant: Date, random: UInt64) -> String {
        let time = UInt64(max(0, instant.unixMilliseconds))
        // 29 ASCII bytes written in place (decisions are recorded by the thousand).
        return String(unsafeUninitializedCapacity: 29) { bytes in
            let hex = hexDigits
            bytes[0] = UInt8(ascii: "a")
            // 12 hex digits of milliseconds last until the year 10889.
            for index in 0..<12 { bytes[1 + index] = hex[Int((time >> UInt64(4 * (11 - index))) & 0xF)] }
            for index in 0..<16 { bytes[13 + index] = hex[Int((random >> UInt64(4 * (15 - index))) & 0xF)] }
            return 29
        }
    }
}
