import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
@testable import SubscriptionService
@testable import WatchlistService

/// Search as a test controls it: one offer per search at the price set for
/// its route (USD cents), or a failure.
final class FakeSearch: Sendable {
    static let knownAirports: Set<String> = ["JFK", "LGA", "EWR", "NYC", "LIS", "OPO", "LHR", "LGW", "LON", "NRT", "DEL", "SYD", "BOS", "SFO", "LAX", "CDG"]

    /// Price by "ORIGIN-DESTINATION"; a route with no price has no fares.
    let prices = Locked<[String: Int64]>([:])
    /// When set, every search fails with this code.
    let failure = Locked<String?>(nil)
    /// When set, every search fails as a search that is away does: the bus's `service-unavailable`, not a code of search's.
    let away = Locked(false)
    /// The `pricing_currency` a lookup answers, by code; none (not said) for others.
    let pricingCurrencies = Locked<[String: String]>([:])
    let requests = Locked<[SearchFlightsRequest]>([])
    /// Searches of a route ("ORIGIN-DESTINATION") with a gate here wait until it opens.
    let gates = Locked<[String: Gate]>([:])

    func setPrice(_ route: String, _ cents: Int64) { prices.update { $0[route] = cents } }
    /// Prices for one trip, by "YYYY-MM-DD/YYYY-MM-DD" (departure/return; "YYYY-MM-DD/" one-way), before the route's.
    let tripPrices = Locked<[String: Int64]>([:])

    static func tripKey(_ request: SearchFlightsRequest) -> String {
        "\(CalendarDate(request.departureDate)?.description ?? "")/\(request.hasReturnDate ? CalendarDate(request.returnDate)?.description ?? "" : "")"
    }

    /// The exchange rates search answers with: a few of the ECB's reference rates of 2024-01-04
    /// (the snapshot search ships), so a test reads real figures.
    static let rates = try! ExchangeRateTable(  // safe: fixed, valid literals checked by the table's own tests
        date: CalendarDate(year: 2024, month: 1, day: 4)!,
        perEuro: ["USD": Decimal(string: "1.0953")!, "GBP": Decimal(string: "0.86278")!, "JPY": Decimal(string: "157.91")!], source: "test (ECB 2024-01-04)")
    /// When set, conversions fail as search's would with no rate.
    let ratesAway = Locked(false)

    /// Answers `SearchFlightsRequest` and `AirportLookupRequest` on `bus`.
    func serve(on bus: MessageBus) throws {
        try bus.serve(AirportLookupRequest.self) { request, _ in
            guard Self.knownAirports.contains(request.code.uppercased()) else { throw FakeSearchError(code: "unknown-airport", message: "code: '\(request.code)' is unknown") }
            var response = FakeAirportLookup.response(request.code)
            response.pricingCurrency = self.pricingCurrencies.get()[request.code.uppercased()] ?? ""
            return response
        }
        try bus.serve(ExchangeRatesRequest.self) { _, _ in
            var response = ExchangeRatesResponse()
            response.date = Self.rates.date.description
            response.ratesPerEuro = Self.rates.perEuro.mapValues { "\($0)" }
            return response
        }
        try bus.serve(ConvertMoneyRequest.self) { request, _ in
            if self.ratesAway.get() { throw FakeSearchError(code: "unknown-currency", message: "no rate") }
            var response = ConvertMoneyResponse()
            do throws(ExchangeRateError) {
                response.converted = try Self.rates.convert(request.amount, to: request.to)
                response.rate = try Self.rates.rateText(from: request.amount.currency, to: request.to)
            } catch {
                throw FakeSearchError(code: error.code.rawValue, message: error.message)
            }
            response.date = Self.rates.date.description
            return response
        }
        try bus.serve(SearchFlightsRequest.self) { request, _ in
            self.requests.update { $0.append(request) }
            if let gate = self.gates.get()["\(request.origin)-\(request.destination)"] { await gate.wait() }
            if let code = self.failure.get() { throw FakeSearchError(code: code, message: "search failed (\(code))") }
            if self.away.get() { throw BusError(kind: .serviceUnavailable, remoteCode: nil, message: "search is away") }
            guard let cents = self.tripPrices.get()[Self.tripKey(request)] ?? self.prices.get()["\(request.origin)-\(request.destination)"] else {
                throw FakeSearchError(code: "no-fares-available", message: "no fares")
            }
            var offer = FlightOffer()
            offer.offerID = "o-\(request.origin)\(request.destination)\(cents)"
            offer.price.currency = "USD"
            offer.price.minorUnits = cents
            offer.provider = "fake"
            var segment = FlightSegment()
            segment.fromAirport = request.origin
            segment.toAirport = request.destination
            segment.departureLocal = "\(CalendarDate(request.departureDate)?.description ?? "2026-01-01")T09:00"
            offer.outbound.segments = [segment]
            if request.hasReturnDate {
                var back = FlightSegment()
                back.fromAirport = request.destination
                back.toAirport = request.origin
                back.departureLocal = "\(CalendarDate(request.returnDate)?.description ?? "2026-01-01")T18:00"
                offer.inbound.segments = [back]
            }
            var response = SearchFlightsResponse()
            response.offers = [offer]
            return response
        }
    }
}

struct FakeSearchError: ServiceError {
    let code: String
    let message: String
}

/// A subscription service, a watchlist service and a fake search, on one
/// bus or two (watchlist on `watchlistBus`), with in-memory databases and one manual clock.
struct WatchlistFixture {
    /// 2026-09-21T14:13:20Z, a Monday.
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    let clock: ManualWallClock
    let search = FakeSearch()
    let subscription: SubscriptionService
    let watchlists: WatchlistService
    let database: ServiceDatabase

    /// - Parameters:
    ///   - bus: where subscription and search serve.
    ///   - watchlistBus: where the watchlist service serves (the same bus when nil).
    ///   - searchBus: where the fake search serves (`bus` when nil).
    init(bus: MessageBus, watchlistBus: MessageBus? = nil, searchBus: MessageBus? = nil, start: Date = WatchlistFixture.start) throws {
        clock = ManualWallClock(start)
        try search.serve(on: searchBus ?? bus)
        subscription = SubscriptionService(
            database: try Self.database("subscription", SubscriptionServiceEntry.migrations), airports: BusAirportChecker(bus: bus), clock: clock, bus: bus,
            logger: quietLogger()
        )
        try subscription.register(on: bus)
        database = try Self.database("watchlist", WatchlistServiceEntry.migrations)
        watchlists = WatchlistService(database: database, bus: watchlistBus ?? bus, clock: clock, checkTick: .seconds(3600), logger: quietLogger())
        try watchlists.register(on: watchlistBus ?? bus)
    }

    static func database(_ service: String, _ serviceMigrations: ServiceMigrations) throws -> ServiceDatabase {
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        serviceMigrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
        return try ServiceDatabase.inMemory(service: service, migrations: migrations)
    }

    /// Runs both services around `body`.
    func running<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let subscriptionTask = Task { try await subscription.run() }
        let watchlistTask = Task { try await watchlists.run() }
        defer {
            subscriptionTask.cancel()
            watchlistTask.cancel()
        }
        return try await withTimeLimit("the test body finished") { try await body() }
    }

    /// A new user (on a trial), optionally set to `tier` by an operator; returns the id.
    func user(_ email: String = "ana@example.com", timeZone: String = "America/New_York", tier: Tier = .trial) async throws -> String {
        var request = CreateUserRequest()
        request.email = email
        request.timeZone = timeZone
        let id = try await subscription.createUser(request).user.userID
        if tier != .trial {
            var set = SetTierRequest()
            set.userID = id
            set.tier = tier
            set.product = tier == .pro ? .monthly : .unspecified
            _ = try await subscription.setTier(set)
        }
        return id
    }

    /// Watchlists of `user` in the table, active or not.
    func rows(_ user: String) throws -> [WatchlistRecord] {
        try database.writer.read { db in try WatchlistRecord.filter(sql: "userID = ?", arguments: [user]).fetchAll(db) }
    }

    func owner(_ user: String) throws -> OwnerRecord? {
        try database.writer.read { db in try OwnerRecord.fetchOne(db, key: user) }
    }
}

/// A create request: "any dates" 7–14 days unless adjusted.
func addRequest(_ user: String, _ origin: String = "JFK", _ destination: String = "NRT", _ adjust: (inout CreateWatchlistRequest) -> Void = { _ in }) -> CreateWatchlistRequest {
    var request = CreateWatchlistRequest()
    request.userID = user
    request.origin = origin
    request.destination = destination
    request.dates.flexible.minTripDays = 7
    request.dates.flexible.maxTripDays = 14
    adjust(&request)
    return request
}

/// A create request for JFK→NRT whose trip is the `index`th of its user's
/// (trips of `index + 1` to 14 + `index` days): a user may not watch one trip twice.
func tripRequest(_ user: String, _ index: Int) -> CreateWatchlistRequest {
    addRequest(user) { request in
        request.dates.flexible.minTripDays = Int32(index + 1)
        request.dates.flexible.maxTripDays = Int32(index + 14)
    }
}

func usd(_ cents: Int64) -> Money {
    var money = Money()
    money.currency = "USD"
    money.minorUnits = cents
    return money
}
