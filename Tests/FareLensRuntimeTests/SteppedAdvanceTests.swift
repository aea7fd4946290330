import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensTesting
import Foundation
import GRDB
import Logging
import Testing

/// A long step of a stepped clock stops at each due market sweep and
/// watchlist check, in order (issue #63: `clock advance 1d` made 118
/// searches where four steps of 6h made 366).
@Suite("Stepped clock: a long step runs every due sweep and check")
struct SteppedAdvanceTests {
    /// 2026-12-01 00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_796_083_200)

    /// What the search and watchlist services did over a run.
    struct Work: Equatable, CustomStringConvertible {
        var sweeps = 0
        var sweepSearches = 0
        var checkRuns = 0
        var watchlistsChecked = 0
        var description: String { "\(sweeps) sweeps (\(sweepSearches) searches), \(checkRuns) check runs (\(watchlistsChecked) watchlists)" }
    }

    @Test("advancing one day in one step sweeps and checks as often as four steps of six hours — every 6-hour sweep and every user's 09:00 (and 18:00) checks — where one jump swept once", .timeLimit(.minutes(2)))
    func oneDayAsFourSixHourSteps() async throws {
        let oneStep = try await Self.run(stepsOfHours: [24])
        let fourSteps = try await Self.run(stepsOfHours: [6, 6, 6, 6])
        let jump = try await Self.run(stepsOfHours: [24], atOnce: true)
        #expect(jump.work.sweeps == 1, "farelensctl clock advance 1d --at-once, as every step was before: \(jump.work)")
        #expect(oneStep.work.sweeps == 4, "\(oneStep.work)")
        #expect(oneStep.work == fourSteps.work, "one step: \(oneStep.work); four: \(fourSteps.work)")
        // Kolkata's 09:00 is 03:30 UTC, New York's 09:00 14:00 UTC and 18:00 23:00 UTC (a trial checks as Pro does).
        #expect(oneStep.work.watchlistsChecked >= 3, "\(oneStep.work)")
        // The first stop is Kolkata's morning checks (09:00 local is 03:30 UTC; each user's check falls a few minutes into its slot).
        let first = try #require(oneStep.stops.first)
        #expect(first > Self.unixMs(Self.start.addingTimeInterval(3.5 * 3600)) && first < Self.unixMs(Self.start.addingTimeInterval(4 * 3600)), "\(oneStep.stops)")
        #expect(oneStep.stops == oneStep.stops.sorted() && oneStep.stops.last == Self.unixMs(Self.start.addingTimeInterval(24 * 3600)))
    }

    /// Runs search, watchlist and subscription in one node on a stepped clock
    /// from ``start``, with a traveller in Kolkata and one in New York each
    /// watching a route, and moves the clock by each step in turn as
    /// `farelensctl clock advance` does (through the node's admin address),
    /// waiting after each stop until nothing due is left undone.
    static func run(stepsOfHours: [Int], atOnce: Bool = false) async throws -> (work: Work, stops: [Int64]) {
        let lines = Locked<[(message: String, metadata: Logger.Metadata)]>([])
        var logger = Logger(label: "stepped") { _ in MetadataCapture(lines: lines) }
        logger.logLevel = .info
        let clock = SteppedClock(start: start)
        let node = try Node(configuration: try configuration(), catalog: ServiceCatalog.all, logger: logger, clock: clock)
        let ready = Gate()
        let running = Task { try await node.run(handleSignals: false) { _ in ready.open() } }
        do {
            try await withTimeLimit("the node is ready") { await ready.wait() }
            for (email, zone, origin, destination) in [("priya@example.com", "Asia/Kolkata", "CCU", "MAA"), ("maya@example.com", "America/New_York", "JFK", "LAX")] {
                var user = CreateUserRequest()
                user.email = email
                user.timeZone = zone
                let id = try await node.bus.request(user).user.userID
                var watchlist = CreateWatchlistRequest()
                watchlist.userID = id
                watchlist.origin = origin
                watchlist.destination = destination
                watchlist.dates.flexible.minTripDays = 5
                watchlist.dates.flexible.maxTripDays = 9
                _ = try await node.bus.request(watchlist)
            }
            // Search keeps the routes it sweeps from the watchlist service's events (docs/search.md, "Market sweep"):
            // the step starts once both watchlists have reached it, as a sweep right after a creation may not have them yet.
            let searchDatabase = try DatabaseQueue(path: "\(node.configuration.dataDirectory)/search.sqlite")
            try await waitUntil("search keeps both watched routes") {
                (try? await searchDatabase.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sweep_watchlist WHERE active = 1") }) == 2
            }
            let bus = node.bus
            let settle: @Sendable () async throws -> Void = {
                try await waitUntil("nothing due is left undone") { (try? await bus.request(NodeClockRequest(), to: .node("hub")).overdue.isEmpty) == true }
            }
            try await settle()
            var stops: [Int64] = []
            let move: @Sendable (Int64) async throws -> Void = { instant in
                var request = NodeClockRequest()
                request.advanceToUnixMs = instant
                _ = try await bus.request(request, to: .node("hub"))
            }
            for hours in stepsOfHours {
                let target = unixMs(clock.now()) + Int64(hours) * 3_600_000
                if atOnce {
                    try await move(target)
                    stops.append(target)
                } else {
                    stops += try await NodeClockStepping.advance(
                        to: target, read: { [try await bus.request(NodeClockRequest(), to: .node("hub"))] }, move: move, settle: settle)
                }
                try await settle()
            }
            await node.shutdown()
            try await running.value
            var work = Work()
            for line in lines.get() {
                if line.message == "market sweep done" {
                    work.sweeps += 1
                    work.sweepSearches += Int("\(line.metadata["searches"] ?? "0")".split(separator: "/").first ?? "0") ?? 0
                } else if line.message == "scheduled checks done" {
                    work.checkRuns += 1
                    work.watchlistsChecked += Int("\(line.metadata["watchlists"] ?? "0")") ?? 0
                }
            }
            return (work, stops)
        } catch {
            await node.shutdown()
            _ = await running.result
            throw error
        }
    }

    static func configuration() throws -> NodeConfiguration {
        let settings = [
            "search.sweep.intervalSeconds": "21600", "search.sweep.initialDelaySeconds": "0", "search.sweep.routes": "2",
            "search.sweep.daysAhead": "10", "subscription.bcryptCost": "4",
        ]
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in settings { values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false) }
        var configuration = try NodeConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: values)))
        configuration.services = "search,watchlist,subscription"
        configuration.nodeName = "hub"
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-stepped-\(UUID().uuidString)").path
        return configuration
    }

    static func unixMs(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// Keeps each line's message and metadata (the sweep's and the checks' counts are in the metadata).
struct MetadataCapture: LogHandler {
    let lines: Locked<[(message: String, metadata: Logger.Metadata)]>
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        lines.update { $0.append(("\(event.message)", merged)) }
    }
}
