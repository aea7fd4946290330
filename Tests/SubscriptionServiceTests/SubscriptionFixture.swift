import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
@testable import SubscriptionService

/// Airports a test knows, instead of asking the search service.
struct KnownAirports: AirportChecker {
    var codes: Set<String> = ["JFK", "LGA", "EWR", "NYC", "LIS", "OPO", "LHR", "LON", "NRT", "DEL", "SYD"]
    func isKnown(_ code: String) async throws(SubscriptionError) -> Bool { codes.contains(code) }
}

/// The airport lookup the search service answers, for bus-level tests.
struct UnknownAirportError: ServiceError {
    let code = "unknown-airport"
    let message: String
}

func serveAirportLookup(on bus: MessageBus, known: Set<String> = KnownAirports().codes) throws {
    try bus.serve(AirportLookupRequest.self) { request, _ in
        guard known.contains(request.code.uppercased()) else { throw UnknownAirportError(message: "code: '\(request.code)' is unknown") }
        return AirportLookupResponse()
    }
}

/// A subscription service on its own bus, in-memory database and manual clock.
struct SubscriptionFixture {
    let bus: MessageBus
    let clock = ManualWallClock(Date(timeIntervalSince1970: 1_790_000_000))  // 2026-09-21T14:13:20Z
    /// Real time as the sessions see it (refresh tokens, sign-in throttling).
    let sessionClock = ManualWallClock(Date(timeIntervalSince1970: 1_790_000_000))
    let database: ServiceDatabase
    let service: SubscriptionService

    init(bus: MessageBus = MessageBus(), appStore: AppStoreVerifier? = nil) throws {
        self.bus = bus
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        SubscriptionServiceEntry.migrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
        database = try ServiceDatabase.inMemory(service: "subscription", migrations: migrations)
        // bcrypt's least cost: the tests check the hashing, not its strength.
        service = SubscriptionService(
            database: database, airports: KnownAirports(), clock: clock, bus: bus, trialCheckInterval: Self.checkInterval, bcryptCost: 4,
            sessionClock: sessionClock, appStore: appStore, logger: quietLogger())
    }

    /// How often the running service checks trials and paid periods on its own: longer than any test moves
    /// the clock, so only the tests' own calls (`advanceTrials()`, `endPaidPeriods()`) check. With the
    /// production minute, every step of a day woke the loop, which then raced the test's call for the
    /// same trial (`TrialTests`, a single-phase run: the test's call found it taken).
    static let checkInterval = Duration.seconds(1_000 * 86_400)

    /// Runs the service (its event publisher and trial checks) around `body`, which starts once the
    /// service's check loop has made its first pass and waits on the clock.
    func running<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await service.run() }
        defer { task.cancel() }
        return try await withTimeLimit("the test body finished") {
            guard await clock.waitUntilSleeping(1) else { throw WaitTimedOut(what: "the service's first check pass") }
            return try await body()
        }
    }

    func userCount() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") ?? 0 }
    }

    static func create(_ email: String = "ana@example.com", timeZone: String = "Europe/Lisbon", _ adjust: (inout CreateUserRequest) -> Void = { _ in }) -> CreateUserRequest {
        var request = CreateUserRequest()
        request.email = email
        request.timeZone = timeZone
        adjust(&request)
        return request
    }
}

func preferred(_ pairs: (String, Double)...) -> [PreferredAirport] {
    pairs.map { code, weight in
        var airport = PreferredAirport()
        airport.code = code
        airport.weight = weight
        return airport
    }
}
