import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging

/// The analytics service's actor: what happened, privately (SPEC §6;
/// docs/analytics.md).
///
/// It hears every topic (one wildcard subscription, applied in batches in one
/// transaction each; durable events exactly once through the inbox) and
/// takes client events, opt-outs, deletions, commission notifications and
/// report requests over the bus. Its state is `analytics.sqlite`, written
/// only from this actor: raw events (90 days, under pseudonyms), the
/// pseudonymous tables that outlive them (opt-outs, trial starts), the
/// attribution ledger (clicked sub-ids, commissions) and `daily_rollup`,
/// which every report reads and which holds no user id. The opted-out
/// pseudonyms are also kept in memory (`optedOut`).
///
/// `run()` applies the subscription, purges raw events past retention
/// every `retentionInterval` (the first purge at once), re-checks clicked
/// fares when a click-out arrives and every minute, and tells each route's
/// track record as it changes every hour, on the injected clock.
actor AnalyticsService: ServiceBehaviour {
    private enum State {
        /// Built, `run()` not yet called.
        case idle
        /// `run()` is applying events and purging.
        case running
        /// `run()` returned.
        case stopped
    }

    private var state = State.idle
    let database: ServiceDatabase
    let clock: any WallClock
    let keyring: PseudonymKeyring
    let retentionInterval: Duration
    let logger: Logger
    /// Asks subscription whether an opt-out's user exists.
    let bus: MessageBus
    /// Every pseudonym (any key version) of an opted-out user: the `opt_out` table in memory.
    var optedOut: Set<String> = []
    /// Events taken from the subscription so far (applied, redelivered or unreadable): what tests wait on.
    private(set) var eventsHeard = 0
    private let everything: EventSubscription<any BusEvent>
    /// Wakes the click re-check: a click-out named its fare, or the pass's period came round.
    let clickWakeups = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    /// How often clicks still waiting for their re-check (search was away) are tried again.
    static let clickRecheckPeriod: Duration = .seconds(60)
    /// Each route's 30-day track record as last told (`RouteTrackRecordChanged`), and when.
    var toldTrackRecords: [String: (window: TrackRecordWindow, at: Date)] = [:]

    /// Raw events are kept this long (SPEC §6).
    static let rawRetentionDays = 90
    /// Most events applied in one transaction.
    static let ingestBatch = 512
    /// Turns given to other tasks after a batch that ``gatheringWindow`` does
    /// not follow (a lone event, or a full batch), before the next is taken.
    /// Each batch is one transaction, and a commit writes its pages to the
    /// WAL whatever the batch's size: under the gateway's cached search (one
    /// `SearchCompleted` a request) batches of one or two cost 3.3 `pwrite`s
    /// and 1.4 `fcntl`s a request; with these turns 1.3 and 0.4, and the
    /// node's CPU a request fell 15% (docs/performance.md, "Gateway"). A quiet
    /// node pays nothing: a yield with nothing else to run returns at once.
    static let gatheringTurns = 4
    /// How long the consumer waits before taking the next batch when the
    /// one it just applied held more than one event (its publishers were
    /// ahead of it) and fewer than ``ingestBatch`` (no backlog): the next
    /// transaction then holds what arrived meanwhile. Under the cached search
    /// a batch grew from a few events to 119–183, and analytics' share of the
    /// node's CPU fell from 15.7% to 12.6% (docs/performance.md, "Gateway").
    /// A lone event (a quiet node) is applied at once and followed by no
    /// wait. Real time, not the service's clock: it paces the writer's work,
    /// and a stepped clock must not hold events back.
    static let gatheringWindow: Duration = .milliseconds(5)
    /// The inbox consumer name under which durable events are recorded.
    static let eventConsumer = "analytics.events"

    init(database: ServiceDatabase, bus: MessageBus, clock: any WallClock, keyring: PseudonymKeyring, retentionInterval: Duration = .seconds(3600), logger: Logger) {
        self.database = database
        self.bus = bus
        self.clock = clock
        self.keyring = keyring
        self.retentionInterval = retentionInterval
        self.logger = logger
        // Every event type, so events from other nodes decode here even with no typed subscriber.
        bus.registerEventTypes(MessageCatalog.events)
        // Subscribed here, before the node's hello, so every topic is routed to this node from the start.
        self.everything = bus.subscribeAll(bufferSize: 4096)
        do {
            let stored = try database.writer.read { db in try String.fetchAll(db, sql: "SELECT pseudonym FROM opt_out") }
            optedOut = Set(stored)
        } catch {
            logger.error("opt-outs not loaded", metadata: ["error": "\(error)"])
        }
    }

    nonisolated func register(on bus: MessageBus) throws {
        try bus.serve(RecordClientEventRequest.self) { request, _ in try await self.record(request) }
        try bus.serve(SetAnalyticsOptOutRequest.self) { request, context in try await self.setOptOut(request, context: context) }
        try bus.serve(DeleteUserDataRequest.self) { request, _ in try await self.deleteUserData(request) }
        try bus.serve(AnalyticsReportRequest.self) { request, _ in try await self.report(request) }
        try bus.serve(RouteTrackRecordRequest.self) { request, _ in try await self.trackRecord(request) }
        try bus.serve(CommissionNotificationRequest.self) { request, _ in try await self.reconcile(request) }
    }

    /// Applies every event heard, in batches, purges raw events past
    /// retention every `retentionInterval` (at once first), and re-checks
    /// clicked fares, until cancelled.
    func run() async throws {
        guard case .idle = state else { return }
        state = .running
        defer { state = .stopped }
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await batch in self.everything.batches(maximum: Self.ingestBatch) {
                    await self.ingest(batch.map { ($0.event, $0.metadata) })
                    // Let the publishers run before the next batch is taken, so it holds more events.
                    if batch.count > 1, batch.count < Self.ingestBatch {
                        try? await Task.sleep(for: Self.gatheringWindow)  // safe: real time, bounded; ends at once on cancellation
                    } else {
                        for _ in 0..<Self.gatheringTurns { await Task.yield() }
                    }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.applyRetention()
                    try? await self.clock.sleep(for: self.retentionInterval)  // safe: the clock's time, the retention period; ends on cancellation
                }
                self.everything.cancel()
            }
            group.addTask {
                // Ends when the task is cancelled (the stream then yields nil).
                for await _ in self.clickWakeups.stream { await self.recheckClicks() }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.tellTrackRecords()
                    try? await self.clock.sleep(for: Self.trackRecordTellingPeriod)  // safe: the clock's time, the telling's period; ends on cancellation
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    self.clickWakeups.continuation.yield()
                    try? await self.clock.sleep(for: Self.clickRecheckPeriod)  // safe: the clock's time, the re-check's retry period; ends on cancellation
                }
            }
        }
    }

    /// Counts events taken from the subscription.
    func heard(_ count: Int) { eventsHeard += count }

    // MARK: Helpers

    func write<T: Sendable>(_ body: @Sendable (Database) throws(AnalyticsError) -> T) throws(AnalyticsError) -> T {
        try database.write(body, storageError: AnalyticsError.storage)
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(AnalyticsError) -> T {
        try database.read(body, storageError: AnalyticsError.storage)
    }

    static func catching<T>(_ body: () throws -> T) throws(AnalyticsError) -> T {
        do { return try body() } catch { throw .storage(error) }
    }

    /// Whether any of the user's pseudonyms opted out.
    func isOptedOut(_ pseudonyms: [String]) -> Bool {
        pseudonyms.contains { optedOut.contains($0) }
    }
}
