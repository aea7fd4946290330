import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import Logging
@testable import SearchService

/// An engine over the real directory with scripted providers, a manual
/// clock and its own bus.
struct SearchEngineFixture {
    let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))  // 2026-11-22 12:00 UTC
    let bus = MessageBus(configuration: BusConfiguration())
    let engine: SearchEngine
    let quota: QuotaLedger

    init(
        simulated: (any FareProvider)? = nil, live: [any FareProvider] = [], quotaLimit: Int64 = 2000,
        database: ServiceDatabase? = nil, cacheLimits: SearchCacheLimits = SearchCacheLimits()
    ) {
        let clock = self.clock
        quota = QuotaLedger(limit: quotaLimit, database: database)
        engine = SearchEngine(
            directory: try! AirportDirectory.bundled(), simulated: simulated, live: live, cache: SearchCache(limits: cacheLimits),
            quota: quota, bus: bus, logger: quietLogger(), now: { clock.now() }
        )
    }

    /// Runs `body` while the engine publishes its events (as the service's
    /// `run()` does); then stops the engine. Bounded: 30 s.
    func running<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let engine = self.engine
        return try await withTimeLimit("the test body finished") {
            try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { await engine.run(); return nil }
                defer { group.cancelAll() }
                let value = try await body()
                return value
            }
        }
    }

    static func request(_ purpose: SearchPurpose = .userSearch, _ change: (inout SearchFlightsRequest) -> Void = { _ in }) -> SearchFlightsRequest {
        var request = SearchFlightsRequest()
        request.origin = "LIS"
        request.destination = "JFK"
        request.departureDate = CalendarDate(year: 2026, month: 12, day: 10)!.message
        request.adults = 1
        request.purpose = purpose
        change(&request)
        return request
    }

    static func migrations() -> ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("search-001-provider-quota", QuotaLedger.migrate)
        return migrations
    }
}
