import func BenchmarkHarness.residentMiB
import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import Foundation
import Logging
import SearchService
import Synchronization

// Soak: distinct user searches through the in-process bus to the real search
// service (simulated market) for a duration, one line per minute with the
// searches/s of that minute and the process RSS. Expected: a flat rate and a
// bounded RSS (the caches are LRUs bounded by entries and bytes).
//
//   soak-benchmarks [SECONDS=600] [--interval SECONDS=60] [--workers N=4] [--small-cache]
//
// --small-cache bounds the caches at 1,000 answers / 8 MiB and 20,000 offers / 16 MiB.

struct Options {
    var seconds = 600
    var interval = 60
    var workers = 4
    var smallCache = false

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--interval": interval = rest.popFirst().flatMap { Int($0) } ?? interval
            case "--workers": workers = rest.popFirst().flatMap { Int($0) } ?? workers
            case "--small-cache": smallCache = true
            default: seconds = Int(argument) ?? seconds
            }
        }
    }
}

func format(_ value: Double, _ decimals: Int = 1) -> String { String(format: "%.\(decimals)f", value) }

/// Airports with observed fares in the bundled data.
let codes = ["LHR", "CDG", "FRA", "AMS", "MAD", "BCN", "FCO", "MXP", "LIS", "DUB", "BER", "VIE", "ZRH", "CPH", "ATH", "IST"]
let cabins: [Cabin] = [.economy, .premiumEconomy, .business, .first]

/// A random user search: route among `codes`, departure 3–200 days out,
/// 1–4 adults, any cabin (about 760,000 distinct searches).
func randomSearch(_ random: inout SystemRandomNumberGenerator) -> SearchFlightsRequest {
    let origin = codes.randomElement(using: &random)!
    var destination = origin
    while destination == origin { destination = codes.randomElement(using: &random)! }
    var request = SearchFlightsRequest()
    request.origin = origin
    request.destination = destination
    request.departureDate = CalendarDate.of(Date(), in: .gmt).adding(days: Int.random(in: 3 ... 200, using: &random)).message
    request.adults = Int32.random(in: 1 ... 4, using: &random)
    request.cabin = cabins.randomElement(using: &random)!
    request.purpose = .userSearch
    request.userID = "soak"
    return request
}

/// Counts shared by the workers and the reporter.
struct Tally: Sendable { var searches = 0; var cached = 0; var failed = 0 }

/// The tally behind a lock, shareable between tasks.
final class SharedTally: Sendable {
    private let state = Mutex(Tally())
    func update(_ body: (inout Tally) -> Void) { state.withLock { body(&$0) } }
    var value: Tally { state.withLock { $0 } }
}

@concurrent func soak(_ options: Options) async throws {
    var logger = Logger(label: "soak")
    logger.logLevel = .critical
    // No market sweep: only the soak's own searches are counted.
    var values: [AbsoluteConfigKey: ConfigValue] = ["search.sweep.intervalSeconds": ConfigValue(.string("0"), isSecret: false)]
    if options.smallCache {
        for (key, value) in ["cache.answers.maxEntries": "1000", "cache.answers.maxMebibytes": "8", "cache.offers.maxEntries": "20000", "cache.offers.maxMebibytes": "16"] {
            values[AbsoluteConfigKey(stringLiteral: "search." + key)] = ConfigValue(.string(value), isSecret: false)
        }
    }
    let bus = MessageBus()
    let descriptor = SearchServiceEntry.descriptor
    let context = ServiceContext(
        bus: bus, database: try ServiceDatabase.inMemory(service: "search", migrations: descriptor.migrations),
        logger: logger, clock: SystemWallClock(), configuration: ConfigReader(providers: [InMemoryProvider(values: values)]).scoped(to: "search")
    )
    let service = try descriptor.make(context)
    try service.register(on: bus)
    let tally = SharedTally()
    let start = ContinuousClock.now
    let end = start + .seconds(options.seconds)
    print("soak: \(options.seconds) s, \(options.workers) workers, caches \(options.smallCache ? "small (1,000 answers / 8 MiB, 20,000 offers / 16 MiB)" : "default (10,000 answers / 64 MiB, 200,000 offers / 128 MiB)"); RSS at start \(format(residentMiB())) MiB")
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await service.run() }  // publishes the service's events, as a node does
        for _ in 0..<options.workers {
            group.addTask {
                var random = SystemRandomNumberGenerator()
                while ContinuousClock.now < end {
                    do {
                        let response = try await bus.request(randomSearch(&random))
                        tally.update { $0.searches += 1; if response.fromCache { $0.cached += 1 } }
                    } catch {
                        tally.update { $0.searches += 1; $0.failed += 1 }
                    }
                }
            }
        }
        group.addTask {
            var minute = 0
            var previous = Tally()
            var mark = start
            while mark < end {
                try await Task.sleep(until: min(mark + .seconds(options.interval), end))  // safe: the reporting period
                let now = ContinuousClock.now
                let current = tally.value
                let seconds = Double((now - mark).components.seconds) + Double((now - mark).components.attoseconds) / 1e18
                minute += 1
                let done = current.searches - previous.searches
                print("[\(minute)] \(format(Double(done) / seconds, 0)) searches/s (\(done) searches, \(current.cached - previous.cached) from cache, \(current.failed - previous.failed) failed) | RSS \(format(residentMiB())) MiB")
                (previous, mark) = (current, now)
            }
        }
        // Workers and reporter end at `end`; the service's run() does not.
        var finished = 0
        while try await group.next() != nil {
            finished += 1
            if finished == options.workers + 1 { group.cancelAll() }
        }
    }
    let total = tally.value
    print("total: \(total.searches) searches (\(total.cached) from cache, \(total.failed) failed) in \(options.seconds) s, \(format(Double(total.searches) / Double(options.seconds), 0)) searches/s; RSS at end \(format(residentMiB())) MiB")
}

try await soak(Options(Array(CommandLine.arguments.dropFirst())))
