import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging

/// The scoring service's actor: price history, DealScore and the deal feed
/// (SPEC §2; docs/scoring.md).
///
/// It learns only from `search.fare-observed`, each event applied once
/// through the inbox (a redelivered fare is not counted twice): the fare is
/// scored against its route's history *before* it, folded into that history,
/// and kept as a current deal when it scores 60 or more (`DealScored`; 90 or
/// more also durable `ExceptionalDeal`). Its state is `scoring.sqlite`
/// (tables `daily_minimum` and `deal`) and, for the feed, the current deals
/// in memory (`current`), loaded from `deal` when `run()` starts.
actor ScoringService: ServiceBehaviour {
    private enum State {
        /// Built, `run()` not yet called.
        case idle
        /// `run()` is ingesting fares and publishing.
        case running
        /// `run()` returned.
        case stopped
    }

    private var state = State.idle
    let database: ServiceDatabase
    let bus: MessageBus
    let clock: any WallClock
    let reference: ReferenceData
    /// `DealScored`, at most once like its topic: published after the commit, never waited for.
    let events: DeferredPublisher
    /// `ExceptionalDeal`, durable: written in the ingest transaction that
    /// made the deal, published from there (``EventOutbox``).
    let exceptionalDeals: EventOutbox
    let logger: Logger
    private let fares: EventSubscription<FareObserved>
    /// Current deals by id: the feed's working set.
    var current: [String: FeedEntry] = [:] {
        didSet { feedTable = nil }
    }
    /// `current` laid out for the feed, made when a feed asks after a change.
    var feedTable: FeedTable?
    /// The codes of `current`'s rows.
    var feedCodes = FeedCodes()
    /// The histories of the routes being scored (``HistoryCache``).
    var historyCache = HistoryCache()
    /// Most observed fares applied in one transaction.
    static let ingestBatch = 512
    /// Most exceptional deals the outbox publishes before it waits for their consumers.
    static let exceptionalDealsBatch = 1_024
    /// How often expired deals and history past retention are removed.
    let housekeepingInterval: Duration
    /// The latest backtest of the buy-or-wait forecasts (docs/forecast.md),
    /// made again once a day: the forecasts' measured accuracy.
    var forecastBacktest: ForecastBacktest?

    /// The inbox consumer name under which observed fares are recorded.
    static let fareConsumer = "scoring.fare-observed"

    init(database: ServiceDatabase, bus: MessageBus, clock: any WallClock, reference: ReferenceData, housekeepingInterval: Duration = .seconds(3600), logger: Logger) {
        self.database = database
        self.bus = bus
        self.clock = clock
        self.reference = reference
        self.events = DeferredPublisher(bus: bus, owner: "scoring", logger: logger)
        self.exceptionalDeals = EventOutbox(
            owner: "scoring", database: database, bus: bus, types: [ExceptionalDeal.self], clock: clock, batchSize: Self.exceptionalDealsBatch, logger: logger)
        self.housekeepingInterval = housekeepingInterval
        self.logger = logger
        // Subscribed here, before the node's hello, so the topic is routed to this node from the start.
        self.fares = bus.subscribe(FareObserved.self, bufferSize: 4096)
    }

    nonisolated func register(on bus: MessageBus) throws {
        try bus.serve(ScoreFareRequest.self) { request, _ in try await self.scoreFare(request) }
        try bus.serve(PriceHistoryRequest.self) { request, _ in try await self.priceHistory(request) }
        try bus.serve(FareForecastRequest.self) { request, _ in try await self.fareForecast(request) }
        try bus.serve(DealFeedRequest.self) { request, context in try await self.dealFeed(request, context: context) }
    }

    /// Loads the current deals, then ingests observed fares, publishes and
    /// keeps house every `housekeepingInterval` until cancelled.
    func run() async throws {
        guard case .idle = state else { return }
        state = .running
        defer { state = .stopped }
        loadCurrentDeals()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.events.run() }
            group.addTask { await self.exceptionalDeals.run() }
            group.addTask { for await batch in self.fares.batches(maximum: Self.ingestBatch) { await self.ingest(batch) } }
            group.addTask {
                while !Task.isCancelled {
                    await self.keepHouse()
                    await self.measureForecasts()
                    try? await self.clock.sleep(for: self.housekeepingInterval)  // safe: the clock's time, the housekeeping period; ends on cancellation
                }
                self.fares.cancel()
                self.events.finish()
            }
        }
    }

    /// Reads the unexpired deals into `current`.
    func loadCurrentDeals() {
        let nowMs = Self.unixMs(clock.now())
        do {
            let records = try database.writer.read { db in try DealRecord.filter(Column("expiresAtUnixMs") > nowMs).fetchAll(db) }
            var loaded: [String: FeedEntry] = [:]
            for record in records {
                if let deal = record.deal, let entry = feedEntry(deal) { loaded[entry.id] = entry }
            }
            current = loaded
            logger.info("current deals loaded", metadata: ["deals": "\(current.count)"])
        } catch {
            logger.error("current deals not loaded; the feed starts empty", metadata: ["error": "\(error)"])
        }
    }

    /// Drops expired deals, history past retention and inbox entries older than the retention.
    func keepHouse() {
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        current = current.filter { $0.value.expiresAtUnixMs > nowMs }
        let oldestDay = Self.day(of: now) - DailyMinimumRecord.retentionDays
        do {
            try database.writer.write { db in
                try DealRecord.filter(Column("expiresAtUnixMs") <= nowMs).deleteAll(db)
                try DailyMinimumRecord.filter(Column("day") < oldestDay).deleteAll(db)
            }
            historyCache.clear()
            try database.pruneInbox(appliedBefore: now.addingTimeInterval(-7 * 86_400))
        } catch {
            logger.error("housekeeping failed; retrying on the next round", metadata: ["error": "\(error)"])
        }
    }

    /// Makes the day's backtest of the forecasts if it is not made yet.
    func measureForecasts() async {
        do {
            _ = try await forecastAccuracy(today: Self.day(of: clock.now()))
        } catch {
            logger.error("forecasts not measured; retrying on the next round", metadata: ["error": "\(error)"])
        }
    }

    static func unixMs(_ date: Date) -> Int64 { date.unixMilliseconds }

    /// Days since 1970-01-01 in UTC.
    static func day(of date: Date) -> Int { Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) }

    static func day(ofUnixMs unixMs: Int64) -> Int { Int((Double(unixMs) / 86_400_000).rounded(.down)) }
}
