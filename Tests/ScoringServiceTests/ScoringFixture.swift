@testable import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
@testable import ScoringService

/// What the other services answer scoring, as a test sets it.
final class FakeNeighbours: Sendable {
    static let airports: Set<String> = ["JFK", "LGA", "EWR", "NYC", "LIS", "OPO", "LHR", "LON", "NRT", "CDG", "PAR", "MIL", "EDI", "MAD", "BCN"]
    /// User id → (tier, time zone, preferred airports).
    let users = Locked<[String: (Tier, String, [(String, Double)])]>([:])
    /// User id → watched routes (origin, destination).
    let watchlists = Locked<[String: [(String, String)]]>([:])

    /// Serves subscription's and watchlist's answers on `bus`, and search's airport lookup unless the real search is there.
    func serve(on bus: MessageBus, airports: Bool = true) throws {
        if airports {
            try bus.serve(AirportLookupRequest.self) { request, _ in
                guard Self.airports.contains(request.code.uppercased()) else { throw NeighbourError(code: "unknown-airport", message: "code: '\(request.code)' is unknown") }
                return FakeAirportLookup.response(request.code)
            }
        }
        try bus.serve(GetUserRequest.self) { request, _ in
            guard let (tier, zone, preferred) = self.users.get()[request.userID] else { throw NeighbourError(code: "unknown-user", message: "no user") }
            var response = GetUserResponse()
            response.user.userID = request.userID
            response.user.tier = tier
            response.user.timeZone = zone
            response.user.preferredAirports = preferred.map { code, weight in
                var airport = PreferredAirport()
                airport.code = code
                airport.weight = weight
                return airport
            }
            response.entitlements.tier = tier
            if tier == .free { response.entitlements.visibleDeals = 20 }
            return response
        }
        try bus.serve(ListWatchlistsRequest.self) { request, _ in
            var response = ListWatchlistsResponse()
            response.watchlists = (self.watchlists.get()[request.userID] ?? []).enumerated().map { index, route in
                var watchlist = Watchlist()
                watchlist.watchlistID = "w-\(index)"
                watchlist.origin = route.0
                watchlist.destination = route.1
                watchlist.cabin = .economy
                watchlist.active = true
                return watchlist
            }
            return response
        }
    }
}

struct NeighbourError: ServiceError {
    let code: String
    let message: String
}

/// A scoring service on its own bus with an in-memory database and a manual clock.
struct ScoringFixture {
    /// 2026-09-21T14:13:20Z.
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    let bus: MessageBus
    let clock: ManualWallClock
    let neighbours = FakeNeighbours()
    let database: ServiceDatabase
    let service: ScoringService

    init(bus: MessageBus = MessageBus(), neighboursOn: MessageBus? = nil, fakeAirports: Bool = true, start: Date = ScoringFixture.start) throws {
        self.bus = bus
        clock = ManualWallClock(start)
        try neighbours.serve(on: neighboursOn ?? bus, airports: fakeAirports)
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        ScoringServiceEntry.migrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
        database = try ServiceDatabase.inMemory(service: "scoring", migrations: migrations)
        service = ScoringService(database: database, bus: bus, clock: clock, reference: try ReferenceData.bundled(), logger: quietLogger())
        try service.register(on: bus)
    }

    /// Today, days since 1970-01-01 (UTC).
    var today: Int { ScoringService.day(of: clock.now()) }

    /// A fare observed `daysAgo` days before the clock's now, departing on `departure`.
    static func fare(
        _ origin: String = "LIS", _ destination: String = "LON", cents: Int64, daysAgo: Int, from now: Date,
        departure: CalendarDate, carrier: String = "TP", stops: Int32 = 0, country: (String, String) = ("PT", "GB")
    ) -> FareObserved {
        var fare = FareObserved()
        fare.origin = origin
        fare.destination = destination
        fare.originCountry = country.0
        fare.destinationCountry = country.1
        fare.departureDate = departure.message
        fare.cabin = .economy
        fare.price.currency = "EUR"
        fare.price.minorUnits = cents
        fare.travellers = 1
        fare.provider = "simulated"
        fare.simulated = true
        fare.carrier = carrier
        fare.stops = stops
        fare.offerID = "o-\(origin)\(destination)\(cents)\(daysAgo)"
        fare.observedAtUnixMs = ScoringService.unixMs(now.addingTimeInterval(-Double(daysAgo) * 86_400))
        fare.purpose = .backgroundSweep
        return fare
    }

    /// A delivery with a chosen identity, as the bus hands one to a subscriber.
    static func delivery(_ fare: FareObserved, publisher: String = "test-publisher", sequence: UInt64) -> Delivery<FareObserved> {
        Delivery(
            event: fare,
            metadata: EventMetadata(
                id: EventID(publisher: publisher, sequence: sequence), topic: FareObserved.topic, typeName: "FareObserved",
                traceID: TraceID(high: 1, low: sequence)))
    }

    /// Ingests `prices` (one per day, oldest first, ending yesterday) on a route departing on `departure`.
    func history(_ prices: [Int64], origin: String = "LIS", destination: String = "LON", departure: CalendarDate, sequenceBase: UInt64 = 0) async {
        for (index, cents) in prices.enumerated() {
            let fare = Self.fare(origin, destination, cents: cents, daysAgo: prices.count - index, from: clock.now(), departure: departure)
            await service.ingest(Self.delivery(fare, sequence: sequenceBase + UInt64(index)))
        }
    }

    /// The departure date `days` after the clock's today.
    func departure(in days: Int) -> CalendarDate { CalendarDate(daysSinceEpoch: today + days) }
}

/// The first event on `subscription` that satisfies `predicate`, within a time limit.
func firstMatching<Event: Sendable>(_ subscription: EventSubscription<Event>, _ predicate: @escaping @Sendable (Event) -> Bool) async throws -> Event {
    try await withTimeLimit("a matching event arrived") {
        for await delivery in subscription where predicate(delivery.event) { return delivery.event }
        throw WaitTimedOut(what: "a matching event (the subscription ended)")
    }
}
