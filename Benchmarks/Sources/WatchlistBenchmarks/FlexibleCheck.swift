import BenchmarkHarness
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging
import SearchService
import WatchlistService

// Issue #60's figure: a check of a flexible watchlist's range — 60 trips,
// each a search answered from search's cache — p99 <= 5 ms in process,
// beside a check of a one-trip (fixed dates) watchlist on the same route in
// the same run. Both are CheckWatchlistNow through the in-process bus: the
// real watchlist service (its SQLite, the check recorded, its events written)
// and the real search engine on the simulated market, its cache warmed first.

@concurrent func runFlexibleCheckBenchmark() async throws {
    var logger = Logger(label: "watchlist-benchmarks")
    logger.logLevel = .critical
    let now: @Sendable () -> Date = { Date() }
    let bus = MessageBus()
    let directory = try AirportDirectory.bundled()
    let engine = SearchEngine(
        directory: directory, simulated: try SimulatedMarket(directory: directory, seed: 1, clock: now), live: [],
        cache: SearchCache(), quota: QuotaLedger(limit: 2000, database: nil), bus: bus, logger: logger, now: now)
    try bus.serve(SearchFlightsRequest.self) { request, context in try await engine.search(request, context: context) }

    var migrations = ServiceMigrations()
    migrations.registerInbox()
    WatchlistServiceEntry.descriptor.migrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
    let database = try ServiceDatabase.inMemory(service: "watchlist", migrations: migrations)
    let today = CalendarDate.of(Date(), in: .gmt)
    @Sendable func number(_ date: CalendarDate) -> Int { date.year * 10_000 + date.month * 100 + date.day }
    let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
    // A Pro user (60 trips a check), checked on demand only; a range of 5–9 nights from 30 days ahead, and one fixed trip.
    try await database.writer.write { db in
        try db.execute(
            sql: "INSERT INTO owner (userID, timeZone, tier, activeLimit, nextCheckAtUnixMs, datePairLimit) VALUES ('u-bench', 'UTC', 2, NULL, ?, 60)",
            arguments: [nowMs + 86_400_000])
        let insert = """
            INSERT INTO watchlist (watchlistID, userID, origin, destination, flexible, minTripDays, maxTripDays, departureDate, returnDate,
            cabin, thresholdMinorUnits, thresholdCurrency, alertMode, muteUntilUnixMs, active, inactiveReason, createdAtUnixMs, updatedAtUnixMs,
            lastPriceCurrency, lastCheckedAtUnixMs, lastDepartureDate, lastReturnDate, lastOfferID, lastProvider, lastSimulated, lastStale,
            belowThreshold, rangeStart, rangeEnd)
            VALUES (?, 'u-bench', 'LIS', 'JFK', ?, ?, ?, ?, ?, 1, NULL, '', 1, 0, 1, 0, ?, ?, '', 0, 0, 0, '', '', 0, 0, 0, ?, ?)
            """
        try db.execute(sql: insert, arguments: [
            "w-range", 1, 5, 9, 0, 0, nowMs, nowMs, number(today.adding(days: 30)), number(today.adding(days: 50)),
        ])
        try db.execute(sql: insert, arguments: [
            "w-fixed", 0, 0, 0, number(today.adding(days: 30)), number(today.adding(days: 37)), nowMs, nowMs, 0, 0,
        ])
    }
    let service = try WatchlistServiceEntry.descriptor.make(ServiceContext(bus: bus, database: database, logger: logger, clock: SystemWallClock()))
    try service.register(on: bus)

    func check(_ id: String) -> CheckWatchlistNowRequest {
        var request = CheckWatchlistNowRequest()
        request.userID = "u-bench"
        request.watchlistID = id
        return request
    }
    // Warm search's cache with every trip of the range (each check scans the next 60) and the fixed trip.
    let first = try await bus.request(check("w-range")).watchlist.lastCheck
    let trips = Int(first.rangePairs)
    for _ in 0 ..< (trips + 59) / 60 { _ = try await bus.request(check("w-range")) }
    _ = try await bus.request(check("w-fixed"))
    print("range of \(trips) trips (5–9 nights, departures 30–45 days ahead); each check scans \(first.scannedPairs.count); the cheapest \(first.lowestPrice.minorUnits) \(first.lowestPrice.currency)")

    for round in 1 ... 3 {
        let single = await latencies(300) { _ in blackHole(try? await bus.request(check("w-fixed"))) }
        let range = await latencies(300) { _ in blackHole(try? await bus.request(check("w-range"))) }
        let (p50, p99) = (percentile(range, 0.5) / 1e6, percentile(range, 0.99) / 1e6)
        let (r50, r99) = (percentile(single, 0.5) / 1e6, percentile(single, 0.99) / 1e6)
        print("[\(round)] check of a flexible range, 60 trips from cache: p50 \(format(p50, decimals: 2)) ms p99 \(format(p99, decimals: 2)) ms | reference one-trip check: p50 \(format(r50, decimals: 2)) ms p99 \(format(r99, decimals: 2)) ms | p50 ratio \(format(p50 / r50, decimals: 1))x (target p99 <= 5 ms: \(p99 <= 5 ? "meets" : "MISSES"))")
    }
}
