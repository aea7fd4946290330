import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging
import Synchronization

/// The watchlist service's actor: watchlists, their checks on each user's
/// local schedule, and the events those checks publish (SPEC §3;
/// docs/watchlist.md).
///
/// Its state is `watchlist.sqlite` (tables `watchlist` and `owner`), written
/// only from this actor; the events it publishes are written into the same
/// database's event outbox in the transaction of the change they report. It asks the subscription service for a user's tier,
/// limit and time zone, search's directory for airport codes, and search for
/// prices, all over the bus; it follows `TierChanged` (through the inbox,
/// exactly once), `UserPreferencesChanged` and `UserDeleted`.
///
/// `run()` publishes the outbox's events, applies those subscriptions, and runs the
/// checks that are due every `checkTick`: the first tick runs at once, so a
/// check that fell due while the process was down runs once on start.
actor WatchlistService: ServiceBehaviour {
    private enum State {
        /// Built, `run()` not yet called.
        case idle
        /// `run()` is publishing, following subscription events and checking.
        case running
        /// `run()` returned.
        case stopped
    }

    private var state = State.idle
    /// Users whose scheduled checks are running, so two overlapping runs never check one user twice.
    var ownersBeingChecked: Set<String> = []
    /// Whether a run of scheduled checks is under way (for the clock's plan: not done yet).
    let checking = CheckingFlag()
    let database: ServiceDatabase
    let bus: MessageBus
    let clock: any WallClock
    /// Where every event this service publishes is written, and published from.
    let events: EventOutbox
    let validator: WatchlistValidator
    let checkTick: Duration
    /// Users whose watchlists are checked at the same time.
    let checkConcurrency: Int
    let logger: Logger
    private let tierChanges: EventSubscription<TierChanged>
    private let preferenceChanges: EventSubscription<UserPreferencesChanged>
    private let deletions: EventSubscription<UserDeleted>
    /// Services that keep watchlists from their events and started without
    /// them (a node that joined later) ask for them again.
    private let announcementWants: EventSubscription<AnnouncementWanted>

    /// The inbox consumer name under which `TierChanged` effects are recorded.
    static let tierConsumer = "watchlist.tier-changed"

    init(
        database: ServiceDatabase, bus: MessageBus, clock: any WallClock, checkTick: Duration = .seconds(30), checkConcurrency: Int = 8,
        logger: Logger
    ) {
        self.database = database
        self.bus = bus
        self.clock = clock
        self.events = EventOutbox(
            owner: "watchlist", database: database, bus: bus, types: [PriceChanged.self, ThresholdCrossed.self, WatchlistChanged.self], clock: clock,
            logger: logger)
        self.validator = WatchlistValidator(
            place: { code throws(WatchlistError) in
                do {
                    return try await AirportLookupRequest.place(code, on: bus)
                } catch {
                    throw .searchUnavailable(cause: error, what: "airport codes cannot be checked now")
                }
            },
            currencies: { () throws(WatchlistError) in
                do {
                    return Set(try await bus.request(ExchangeRatesRequest()).ratesPerEuro.keys).union(["EUR"])
                } catch {
                    throw .searchUnavailable(cause: error, what: "the exchange rates cannot be asked now")
                }
            })
        self.checkTick = checkTick
        self.checkConcurrency = max(1, checkConcurrency)
        self.logger = logger
        // Subscribed here, before the node's hello, so the topics are routed to this node from the start.
        self.tierChanges = bus.subscribe(TierChanged.self)
        self.preferenceChanges = bus.subscribe(UserPreferencesChanged.self)
        self.deletions = bus.subscribe(UserDeleted.self)
        self.announcementWants = bus.subscribe(AnnouncementWanted.self)
    }

    nonisolated func register(on bus: MessageBus) throws {
        try bus.serve(CreateWatchlistRequest.self) { request, context in try await self.create(request, context: context) }
        try bus.serve(GetWatchlistRequest.self) { request, _ in try await self.get(request) }
        try bus.serve(UpdateWatchlistRequest.self) { request, context in try await self.update(request, context: context) }
        try bus.serve(DeleteWatchlistRequest.self) { request, context in try await self.delete(request, context: context) }
        try bus.serve(ListWatchlistsRequest.self) { request, _ in try await self.list(request) }
        try bus.serve(CheckWatchlistNowRequest.self) { request, context in try await self.checkNow(request, context: context) }
        try bus.serve(WatchedRoutesRequest.self) { request, _ in try await self.watchedRoutes(request) }
        try bus.serve(RouteWatchersRequest.self) { request, _ in try await self.routeWatchers(request) }
    }

    /// Publishes the outbox's events, follows the subscription service's
    /// events and runs due checks every `checkTick`, until cancelled; then
    /// publishes what the outbox holds once more and returns.
    func run() async throws {
        guard case .idle = state else { return }
        state = .running
        defer { state = .stopped }
        // The clock asks when the next user's checks are due (a stepped clock stops a long step there);
        // one due at or before now has not been checked yet.
        // Checks under way count as due until their run is over.
        let database = self.database, checking = self.checking, clock = self.clock
        clock.plan("watchlist.checks") {
            if checking.value { return clock.now() }
            let next = try? database.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(nextCheckAtUnixMs) FROM owner") }
            return next.flatMap { $0 }.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        defer { clock.unplan("watchlist.checks") }
        announcePending()
        if let day = try? WatchlistPlanning.day(database: database, from: clock.now()) {
            logger.info("checks planned in the next 24 h", metadata: ["users": "\(day.users)", "checks": "\(day.checks)"])
        }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.events.run() }
            group.addTask { for await delivery in self.tierChanges { await self.apply(delivery) } }
            group.addTask { for await delivery in self.preferenceChanges { await self.apply(delivery.event) } }
            group.addTask { for await delivery in self.deletions { await self.apply(delivery.event) } }
            group.addTask {
                await WantedAnnouncements.follow(
                    self.announcementWants, announcement: Self.watchlistsAnnouncement, database: self.database, logger: self.logger
                ) { await self.announcePending() }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.runDueChecks()
                    try? await self.clock.sleep(for: self.checkTick)  // safe: the clock's time, the check schedule's tick (tests call runDueChecks directly); ends on cancellation
                }
                self.tierChanges.cancel()
                self.preferenceChanges.cancel()
                self.deletions.cancel()
                self.announcementWants.cancel()
            }
        }
    }

    // MARK: Helpers

    func write<T: Sendable>(_ body: @Sendable (Database) throws(WatchlistError) -> T) throws(WatchlistError) -> T {
        try database.write(body, storageError: WatchlistError.storage)
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(WatchlistError) -> T {
        try database.read(body, storageError: WatchlistError.storage)
    }

    static func catching<T>(_ body: () throws -> T) throws(WatchlistError) -> T {
        do { return try body() } catch { throw .storage(error) }
    }

    /// Writes `WatchlistChanged` for `record` into the event outbox inside
    /// the write transaction `db`.
    nonisolated func appendChange(
        _ change: WatchlistChanged.Change, _ record: WatchlistRecord, at now: Date, parent: RequestContext?, in db: Database
    ) throws(WatchlistError) {
        var event = WatchlistChanged()
        event.change = change
        event.watchlist = record.message
        event.atUnixMs = Self.unixMs(now)
        try Self.catching { try events.append(event, parent: parent, in: db) }
    }

    static func unixMs(_ date: Date) -> Int64 { date.unixMilliseconds }

    static func date(_ unixMs: Int64) -> Date { Date(unixMilliseconds: unixMs) }

    /// A prefix and 16 random hex digits.
    static func newID(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(generator.next() as UInt64, radix: 16)
        return prefix + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Whether scheduled checks are running, readable outside the actor (the clock's plan).
final class CheckingFlag: Sendable {
    private let running = Mutex(false)

    var value: Bool {
        get { running.withLock { $0 } }
        set { running.withLock { $0 = newValue } }
    }
}
