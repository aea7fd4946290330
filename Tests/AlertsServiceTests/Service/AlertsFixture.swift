@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
import Logging
@testable import SubscriptionService
@testable import WatchlistService

/// Search as the alerts tests control it: the airport directory (with city
/// names) and one offer per search at the price set for its route.
final class FakeDirectory: Sendable {
    static let cities = ["JFK": "New York", "NRT": "Tokyo", "LIS": "Lisbon", "LHR": "London", "LAX": "Los Angeles", "SFO": "San Francisco", "SYD": "Sydney", "DEL": "Delhi", "CDG": "Paris", "LCY": "London", "LON": "London"]
    /// Metro codes of the airports that have one.
    static let metros = ["LCY": "LON", "LHR": "LON"]
    /// USD cents by "ORIGIN-DESTINATION"; none: no fares.
    let prices = Locked<[String: Int64]>([:])
    let searches = Locked<Int>(0)
    let rateRequests = Locked<Int>(0)

    func serve(on bus: MessageBus) throws {
        try bus.serve(AirportLookupRequest.self) { request, _ in
            guard let city = Self.cities[request.code.uppercased()] else { throw FakeDirectoryError(code: "unknown-airport", message: "code: '\(request.code)' is unknown") }
            var response = AirportLookupResponse()
            response.airport.iataCode = request.code.uppercased()
            response.airport.city = city
            response.airport.metroCode = Self.metros[request.code.uppercased()] ?? ""
            return response
        }
        // Two of the ECB's reference rates of 2024-01-04 (the snapshot search ships).
        try bus.serve(ExchangeRatesRequest.self) { _, _ in
            self.rateRequests.update { $0 += 1 }
            var response = ExchangeRatesResponse()
            response.date = "2024-01-04"
            response.ratesPerEuro = ["USD": "1.0953", "GBP": "0.86278"]
            return response
        }
        try bus.serve(SearchFlightsRequest.self) { request, _ in
            self.searches.update { $0 += 1 }
            guard let cents = self.prices.get()["\(request.origin)-\(request.destination)"] else { throw FakeDirectoryError(code: "no-fares-available", message: "no fares") }
            var offer = FlightOffer()
            offer.price = Money(minorUnits: cents, currency: "USD")
            var response = SearchFlightsResponse()
            response.offers = [offer]
            return response
        }
    }
}

struct FakeDirectoryError: ServiceError {
    let code: String
    let message: String
}

/// A channel that records what it is handed and answers from a script (delivered when the script is empty).
final class RecordingChannel: AlertDeliveryChannel {
    let channel: AlertChannel
    let received = Locked<[OutboundAlert]>([])
    let script = Locked<[DeliveryOutcome]>([])

    init(_ channel: AlertChannel = .webhook) { self.channel = channel }

    func deliver(_ alert: OutboundAlert) async -> DeliveryOutcome {
        received.update { $0.append(alert) }
        var outcome = DeliveryOutcome.delivered
        script.update { if !$0.isEmpty { outcome = $0.removeFirst() } }
        return outcome
    }

    var deliveredIDs: [String] { received.get().map(\.alertID) }
}

/// Subscription, watchlist, a fake directory/search and the alerts service
/// on one bus, in-memory databases and one manual clock.
struct AlertsFixture {
    /// 2026-06-10 12:00 in New York (16:00Z), a Wednesday.
    static let noonNewYork = Date(timeIntervalSince1970: 1_781_107_200)

    let clock: ManualWallClock
    /// The transport clock: when retries are due. The business clock unless a test separates them.
    let wire: ManualWallClock
    let directory = FakeDirectory()
    let channel = RecordingChannel()
    let subscription: SubscriptionService
    /// The real watchlist service (alerts keeps who watches a deal's route from its events).
    let watchlists: WatchlistService
    let alerts: AlertsService
    let database: ServiceDatabase
    let bus: MessageBus

    /// A bus on a clock that stands (``BusClock/standing()``): no request
    /// times out while the machine is busy. At the start of the parallel
    /// test run every suite starts at once on two cores, and a first request
    /// has been seen to wait longer than 5 s for its turn; these tests are of
    /// alerts' decisions, not of the bus's deadlines. (A decision gathering
    /// competing events is tested on a clock the test moves:
    /// ``CompetingTopicsTests``.)
    static func patientBus() -> MessageBus {
        var configuration = BusConfiguration()
        configuration.clock = .standing()
        return MessageBus(configuration: configuration)
    }

    /// - Parameters:
    ///   - gathering: the decision stream's gathering window; zero (no wait) unless a test is about which events compete.
    ///   - wireStart: when set, the transport clock is a clock of its own starting there (real time beside a business
    ///     clock far from it); otherwise it is the business clock.
    ///   - handsAudience: see ``handsAudience``.
    init(
        bus: MessageBus = AlertsFixture.patientBus(), alertsBus: MessageBus? = nil, start: Date = AlertsFixture.noonNewYork, channels: [any AlertDeliveryChannel]? = nil,
        gathering: Duration = .zero, wireStart: Date? = nil, handsAudience: Bool = true
    ) throws {
        self.bus = bus
        self.handsAudience = handsAudience
        clock = ManualWallClock(start)
        wire = wireStart.map { ManualWallClock($0) } ?? clock
        try directory.serve(on: bus)
        subscription = SubscriptionService(
            database: try Self.database("subscription", SubscriptionServiceEntry.migrations), airports: BusAirportChecker(bus: bus), clock: clock, bus: bus,
            logger: quietLogger())
        try subscription.register(on: bus)
        watchlists = WatchlistService(
            database: try Self.database("watchlist", WatchlistServiceEntry.migrations), bus: bus, clock: clock, checkTick: .seconds(3_600), logger: quietLogger())
        try watchlists.register(on: bus)
        database = try Self.database("alerts", AlertsServiceEntry.migrations)
        alerts = Self.service(database: database, bus: alertsBus ?? bus, clock: clock, wire: wire, channels: channels ?? [channel], gathering: gathering)
        try alerts.register(on: alertsBus ?? bus)
    }

    /// An alerts service on `database`: the fixture's, or a restarted one on the same database.
    /// - Parameter wire: the transport clock (when retries are due); the business clock `clock` when nil.
    static func service(
        database: ServiceDatabase, bus: MessageBus, clock: ManualWallClock, wire: ManualWallClock? = nil, channels: [any AlertDeliveryChannel],
        tick: Duration = .milliseconds(20), gathering: Duration = .zero, logger: Logger = quietLogger()
    ) -> AlertsService {
        let policy = RetryPolicy(maxAttempts: 3, initialBackoff: .seconds(10), maxBackoff: .seconds(60), jitter: 0)
        let transport = wire ?? clock
        return AlertsService(
            database: database, bus: bus, clock: clock, transport: TransportClock(following: transport), channels: channels,
            backoff: { attempt, retryAfter in policy.delay(afterAttempt: attempt, retryAfter: retryAfter) }, deliveryTick: tick, gathering: gathering,
            logger: logger)
    }

    static func database(_ service: String, _ serviceMigrations: ServiceMigrations) throws -> ServiceDatabase {
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        serviceMigrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
        return try ServiceDatabase.inMemory(service: service, migrations: migrations)
    }

    /// A new user in `timeZone` on `tier`, preferring `airports` (weights split evenly).
    func user(_ email: String, timeZone: String = "America/New_York", tier: Tier = .free, airports: [String] = ["JFK"]) async throws -> String {
        var request = CreateUserRequest()
        request.email = email
        request.timeZone = timeZone
        request.preferredAirports = airports.map { code in
            var airport = PreferredAirport()
            airport.code = code
            airport.weight = 1 / Double(airports.count)
            return airport
        }
        let id = try await subscription.createUser(request).user.userID
        if tier != .trial {
            var set = SetTierRequest()
            set.userID = id
            set.tier = tier
            set.product = tier == .pro ? .monthly : .unspecified
            _ = try await subscription.setTier(set)
        }
        if handsAudience { await keepPreferences(of: id) }
        return id
    }

    /// Whether ``user(_:timeZone:tier:airports:)``, ``watch(_:_:_:cabin:)`` and
    /// ``unwatch(_:_:)`` hand alerts' kept audience the state the services'
    /// events carry (their outboxes are not run here); false when a test runs
    /// the outboxes and alerts follows the events themselves
    /// (`AudienceFollowTests`, `AlertsMeshTests`: then it waits for them).
    let handsAudience: Bool

    /// Hands alerts the user's settings and preferred airports as
    /// subscription's `UserPreferencesChanged` states them (the user as
    /// subscription answers now: call it again after changing them).
    func keepPreferences(of userID: String) async {
        var request = GetUserRequest()
        request.userID = userID
        guard let answer = try? await subscription.user(request) else { return }
        await alerts.audience.apply(UserPreferencesChanged(announcing: answer, atUnixMs: clock.now().unixMilliseconds))
    }

    /// Hands alerts `watchlist` as watchlist's `WatchlistChanged` states it.
    func keepWatchlist(_ watchlist: Watchlist, _ change: WatchlistChanged.Change) async {
        var event = WatchlistChanged()
        event.change = change
        event.watchlist = watchlist
        event.atUnixMs = clock.now().unixMilliseconds
        await alerts.audience.apply(event)
    }

    /// Deletes `user`'s watchlist `watchlistID` (and tells alerts' audience, when the fixture hands it).
    func unwatch(_ user: String, _ watchlistID: String) async throws {
        var request = GetWatchlistRequest()
        request.userID = user
        request.watchlistID = watchlistID
        let watchlist = try await watchlists.get(request).watchlist
        var delete = DeleteWatchlistRequest()
        delete.userID = user
        delete.watchlistID = watchlistID
        _ = try await watchlists.delete(delete)
        if handsAudience { await keepWatchlist(watchlist, .deleted) }
    }

    /// Runs subscription's and watchlist's event outboxes (their events reach
    /// the bus, as in a node) while `body` runs; with `watchlistService`, the
    /// whole watchlist service (which then also follows subscription's
    /// events: a deleted user's watchlists go, a downgrade deactivates).
    func publishing<T>(watchlistService: Bool = false, _ body: () async throws -> T) async throws -> T {
        let watchlists = self.watchlists
        let relays: [Task<Void, Never>] = [
            Task { await subscription.events.run() },
            watchlistService ? Task { try? await watchlists.run() } : Task { await watchlists.events.run() },
        ]
        defer { relays.forEach { $0.cancel() } }
        return try await body()
    }

    /// Waits until alerts keeps `users` users and `watchlists` watchlists from the events (bounded).
    func waitForAudience(users: Int, watchlists: Int) async throws {
        try await waitUntil("alerts keeps \(users) users and \(watchlists) watchlists from the events") {
            guard let counts = try? alerts.audience.counts() else { return false }
            return counts.users == users && counts.watchlists == watchlists
        }
    }

    /// An active watchlist of `user` on `origin`→`destination` (any dates, 7–14 days), its id.
    @discardableResult
    func watch(_ user: String, _ origin: String, _ destination: String, cabin: Cabin = .economy) async throws -> String {
        var request = CreateWatchlistRequest()
        request.userID = user
        request.origin = origin
        request.destination = destination
        request.cabin = cabin
        var flexible = FlexibleDates()
        (flexible.minTripDays, flexible.maxTripDays) = (7, 14)
        request.dates.flexible = flexible
        let watchlist = try await watchlists.create(request).watchlist
        if handsAudience { await keepWatchlist(watchlist, .created) }
        return watchlist.watchlistID
    }

    /// A pending threshold crossing for `user` on `route`, at `cents` USD, with a unique inbox key.
    func crossing(_ user: String, _ origin: String = "JFK", _ destination: String = "NRT", cents: Int64 = 65_000, sequence: UInt64) -> PendingEvent {
        let event = crossingEvent(user, origin, destination, cents: cents)
        return PendingEvent(key: InboxKey(publisher: "watchlist-test", sequence: sequence), consumer: AlertsService.crossingConsumer, candidates: [AlertsService.candidate(for: event)])
    }

    /// The threshold crossing ``crossing(_:_:_:cents:sequence:)`` makes candidates of.
    func crossingEvent(_ user: String, _ origin: String = "JFK", _ destination: String = "NRT", cents: Int64 = 65_000) -> ThresholdCrossed {
        var event = ThresholdCrossed()
        event.userID = user
        event.watchlistID = "w-\(origin)\(destination)"
        event.origin = origin
        event.destination = destination
        event.priceThreshold = Money(minorUnits: cents + 5_000, currency: "USD")
        event.check.lowestPrice = Money(minorUnits: cents, currency: "USD")
        event.check.departureDate = CalendarDate(year: 2026, month: 9, day: 1)!.message
        event.check.belowThreshold = true
        return event
    }

    /// Moves the transport clock one retry interval (1 s) each time a retry
    /// waits on it, until `condition` holds: a failure is waited out because
    /// the test moves time, never because a real second passed. Bounded by
    /// `limit` of real time.
    func retryUntil(_ what: String, limit: Duration = .seconds(20), _ condition: () -> Bool) async throws {
        try await waitUntil(what, limit: limit) {
            if condition() { return true }
            if wire.sleeping > 0 { wire.advance(by: 1) }
            return false
        }
    }

    /// Waits until a retry waits on the transport clock (the attempt before
    /// it has failed), moves the clock one retry interval, and waits until a
    /// retry waits again: the attempt after it has failed too. Needs a
    /// transport clock of its own (`wireStart`), so no other loop waits on it.
    func failTwice(_ what: String) async throws {
        guard wire !== clock else { throw WaitTimedOut(what: "\(what): needs a transport clock of its own (wireStart)") }
        guard await wire.waitUntilSleeping(1) else { throw WaitTimedOut(what: "\(what): a first failed attempt") }
        wire.advance(by: 1)
        guard await wire.waitUntilSleeping(1) else { throw WaitTimedOut(what: "\(what): a second failed attempt") }
    }

    func rows(_ user: String) throws -> [AlertRow] {
        try database.writer.read { db in try AlertRow.filter(sql: "userID = ?", arguments: [user]).order(sql: "decidedAtUnixMs, rowid").fetchAll(db) }
    }

    func outbox() throws -> [OutboxRow] {
        try database.writer.read { db in try OutboxRow.order(sql: "createdAtUnixMs, rowid").fetchAll(db) }
    }
}

func usd(_ cents: Int64) -> Money { Money(minorUnits: cents, currency: "USD") }
