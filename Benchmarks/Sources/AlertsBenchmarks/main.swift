import AlertsService
import AsyncHTTPClient
import BenchmarkHarness
import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging
import NIOCore

// Alerts service benchmarks (issue #11 targets), each beside a reference
// measured in the same run: alert decisions >= 100 k/s in process; outbox
// delivery to a local receiver >= 2 k webhooks/s; fare observed -> scored
// -> alert decision >= 50 k fares/s (Pipeline.swift).

/// Search's airport directory as the alerts service asks it (city names and
/// metros, answered from memory like search's own): the benchmark's
/// airports; any other code gets the empty answer search gives a code it
/// does not know.
func serveDirectory(on bus: MessageBus) throws {
    let cities = ["JFK": "New York", "NRT": "Tokyo", "LAX": "Los Angeles", "SFO": "San Francisco", "LHR": "London", "CDG": "Paris", "SYD": "Sydney", "DEL": "Delhi", "LIS": "Lisbon"]
    let metros = ["JFK": "NYC", "NRT": "TYO", "LHR": "LON", "CDG": "PAR"]
    try bus.serve(AirportLookupRequest.self) { request, _ in
        var response = AirportLookupResponse()
        if let city = cities[request.code] {
            response.airport.iataCode = request.code
            response.airport.city = city
            response.airport.metroCode = metros[request.code] ?? ""
        }
        return response
    }
}

func crossing(_ index: Int, users: Int, prefix: String = "u") -> ThresholdCrossed {
    let destinations = ["NRT", "LAX", "SFO", "LHR", "CDG", "SYD", "DEL", "LIS"]
    var event = ThresholdCrossed()
    event.checkID = "c\(index)"
    event.userID = "\(prefix)\(index % users)"
    event.watchlistID = "w\(index)"
    event.origin = "JFK"
    event.destination = destinations[(index / users) % destinations.count]
    event.priceThreshold = Money(minorUnits: 70_000, currency: "USD")
    event.check.lowestPrice = Money(minorUnits: 60_000 + Int64(index % 997), currency: "USD")
    event.check.belowThreshold = true
    return event
}

func openDatabase(_ directory: String) throws -> ServiceDatabase {
    try openDatabase(directory, AlertsServiceEntry.descriptor)
}

func appliedEvents(_ database: ServiceDatabase) async throws -> Int {
    try await database.writer.read { db in try ServiceDatabase.appliedEventCount(in: db) }
}

func count(_ database: ServiceDatabase, _ sql: String) async throws -> Int {
    try await database.writer.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
}

/// The alerts service's configuration for a benchmark: `values`, with
/// `alerts.gatherMilliseconds` from `FARELENS_BENCH_GATHER_MS` when set (to
/// compare a window with none in one sitting); otherwise the default window.
func alertsConfiguration(_ values: [AbsoluteConfigKey: ConfigValue]) -> ConfigReader {
    var values = values
    if let milliseconds = ProcessInfo.processInfo.environment["FARELENS_BENCH_GATHER_MS"].flatMap(Int.init) {
        values["gatherMilliseconds"] = ConfigValue(.int(milliseconds), isSecret: false)
    }
    return ConfigReader(provider: InMemoryProvider(values: values))
}

/// Runs the alerts service on a new bus with `values` as its configuration; returns the bus, its database and the running task.
func startService(_ directory: String, _ values: [AbsoluteConfigKey: ConfigValue], logger: Logger) async throws -> (MessageBus, ServiceDatabase, Task<Void, any Error>) {
    let bus = MessageBus()
    try serveDirectory(on: bus)
    let database = try openDatabase(directory)
    // Every user of every round (u0…, q0…), as alerts keeps them from subscription's events.
    try seedKeptUsers(database, ids: benchmarkUserIDs(20_000))
    let context = ServiceContext(bus: bus, database: database, logger: logger, clock: SystemWallClock(), configuration: alertsConfiguration(values))
    let service = try AlertsServiceEntry.descriptor.make(context)
    try service.register(on: bus)
    let running = Task { try await service.run() }
    return (bus, database, running)
}

func runAlertsBenchmarks() async throws {
    var logger = Logger(label: "bench")
    logger.logLevel = ProcessInfo.processInfo.environment["BENCH_LOG"] == nil ? .error : .debug
    let root = NSTemporaryDirectory() + "farelens-alerts-bench-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: root) }
    // FARELENS_BENCH_ONLY=pipeline runs only part 3; =held only the held decisions of part 1, =sent only its sent ones (for profiling); =split only part 1b;
    // =state-memory only the memory of the users-with-state set at 1 M users.
    let only = ProcessInfo.processInfo.environment["FARELENS_BENCH_ONLY"]
    print("alerts' gathering window: \(ProcessInfo.processInfo.environment["FARELENS_BENCH_GATHER_MS"].map { "\($0) ms (FARELENS_BENCH_GATHER_MS)" } ?? "the default, \(AlertDeliverySettings.defaultGatheringWindow)")")
    if only == "pipeline" {
        try await runPipelineBenchmark(root: root, logger: logger)
        return
    }
    if only == "split" {
        try await runSplitDecisionsBenchmark(root: root, logger: logger)
        return
    }
    if only == "state-memory" {
        runStateMemoryBenchmark()
        return
    }

    // 1. Decisions: threshold crossings through the in-process bus, each decided and recorded (inbox, policy, alert row, outbox),
    // all sent (so the outbox delivers 2 × 100,000 rows on the same cores meanwhile), then all held (nothing to deliver).
    for round in (only == "held" ? 4...6 : only == "sent" ? 1...3 : 1...6) {
        let events = 100_000, users = 20_000
        let held = round > 3
        let prefix = held ? "q" : "u"
        let (bus, database, running) = try await startService("\(root)/decide-\(round)", ["log.path": ConfigValue(.string("/dev/null"), isSecret: false)], logger: logger)
        let start = ContinuousClock.now
        for index in 0..<events { try await bus.publish(crossing(index, users: users, prefix: prefix)) }
        // Also when 90% were decided: the rate before the round's tail, whose last batch waits out the gathering window
        // (a latency: no event of a steady stream waits longer than its window).
        var ninetyPercentSeconds: Double?
        while case let decided = try await count(database, "SELECT COALESCE(MAX(rowid), 0) FROM alert"), decided < events {
            if ninetyPercentSeconds == nil, decided >= events * 9 / 10 { ninetyPercentSeconds = nanoseconds(ContinuousClock.now - start) / 1e9 }
            try await Task.sleep(for: .milliseconds(10))  // safe: polling the benchmark's own progress
        }
        let seconds = nanoseconds(ContinuousClock.now - start) / 1e9
        let steady = Double(events * 9 / 10) / (ninetyPercentSeconds ?? seconds) / 1e3
        let decisions = try await database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT decision, COUNT(*) AS n FROM alert GROUP BY decision").map { "\(($0["decision"] as Int)):\(($0["n"] as Int))" }
        }
        // A sent round's outbox: one of its bodies (the floor writes bodies of the same size) and its channels.
        let (body, channels) = try await database.writer.read { db in
            (try Data.fetchOne(db, sql: "SELECT body FROM outbox LIMIT 1") ?? Data(), try Int.fetchAll(db, sql: "SELECT DISTINCT channel FROM outbox ORDER BY channel"))
        }
        // The log's length at the round's end: bounded by the writer's backstop (docs/decisions/0023).
        if let path = database.path, let size = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int {
            print("[\(round)] the alerts database's log at the round's end: \(String(format: "%.1f", Double(size) / 1e6)) MB")
        }
        running.cancel()
        _ = await running.result
        // Reference: the rows the decisions write, straight into SQLite as the service binds them, as many per transaction
        // as the service decides together (1,024): each decision's alert row (a held one with its digest due time), and the
        // transaction's inbox row.
        let reference = try openDatabase("\(root)/reference-\(round)")
        let referenceStart = ContinuousClock.now
        let perTransaction = 1_024
        for batch in stride(from: 0, to: events, by: perTransaction) {
            try await reference.writer.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO alert VALUES (?, ?, 2, ?, 'Sent', 'JFK', 'NRT', '', ?, 'USD', 60000, 0, 120, 'Tokyo fell to $600', 'At or below your $700 target.', '1,2,3', ?, '2026-11-22', 0, 2, '', 0, 0, ?, '', '', '', 1, 2, 0, 0, 0)")
                let now = Date()
                let indices = batch..<min(events, batch + perTransaction)
                _ = try ServiceDatabase.recordOnce(indices.map { InboxKey(publisher: "bench", sequence: UInt64($0)) }, consumer: "alerts.threshold-crossed", at: now, in: db)
                for index in indices {
                    try statement.executeBinding { values in
                        values.bind("a\(index)"); values.bind("\(prefix)\(index % users)"); values.bind(held ? 2 : 1); values.bind("w\(index)")
                        values.bind(now.unixMilliseconds); values.bind(held ? now.unixMilliseconds + 3_600_000 : 0)
                    }
                }
            }
        }
        let referenceSeconds = nanoseconds(ContinuousClock.now - referenceStart) / 1e9
        // A sent round's second reference, the floor of its storage on one writer: everything the first writes, plus each
        // sent decision's outbox rows (one per channel, with a body of the round's size) and its delivery's outcome (the
        // outbox rows and the alert row updated, as many per transaction as a delivery pass attempts, 256), bound the way
        // the service binds them. It leaves out every read the service's transactions make (the inbox's check, the policy
        // state, the outcomes' summary) and all of the work off the writer.
        var floorLine = ""
        if !held {
            let floor = try await sentRowsFloorSeconds("\(root)/floor-\(round)", events: events, users: users, body: body, channels: channels)
            let floorSeconds = floor.rows + floor.outcomes
            floorLine = " | floor: a sent decision's rows and its delivery's outcome alone, on one writer \(format(Double(events) / floorSeconds / 1e3)) k/s"
                + " (rows \(format(floor.rows / Double(events) * 1e6, decimals: 2)) µs, outcome \(format(floor.outcomes / Double(events) * 1e6, decimals: 2)) µs a decision; \(body.count)-byte bodies) | ratio \(format(seconds / floorSeconds))x"
        }
        print("[\(round)] alert decisions, \(events) threshold crossings for \(users) users through the bus (inbox, the users' settings as alerts keeps them, policy, record\(held ? "; all held in quiet hours" : ", outbox; all sent and delivered meanwhile")): \(format(Double(events) / seconds / 1e3)) k decisions/s (the first 90%: \(format(steady)) k/s) [\(decisions.joined(separator: " "))] | reference: the decisions' rows alone (alert rows, the inbox row), 1,024 per transaction \(format(Double(events) / referenceSeconds / 1e3)) k/s | ratio \(format(seconds / referenceSeconds))x\(floorLine) (target >= 100 k/s: \(Double(events) / seconds >= 1e5 ? "meets" : "MISSES"))")
    }

    if only == "held" || only == "sent" { return }

    // 1b. The same decisions with the alerts service on a spoke and subscription and the publisher on the hub (Split.swift).
    try await runSplitDecisionsBenchmark(root: root, logger: logger)

    // 2. Outbox delivery: accepted alerts signed and POSTed to a local receiver.
    let (receiver, port) = try await LocalReceiver.start()
    let url = "http://127.0.0.1:\(port)/hook"
    let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
    for round in 1...3 {
        let alerts = 5_000
        let (bus, database, running) = try await startService("\(root)/deliver-\(round)", [
            "webhook.url": ConfigValue(.string(url), isSecret: false),
            "webhook.secrets": ConfigValue(.string(secret), isSecret: true),
            "log.path": ConfigValue(.string("/dev/null"), isSecret: false),
        ], logger: logger)
        let start = ContinuousClock.now
        // One crossing per user: all are sent.
        for index in 0..<alerts { try await bus.publish(crossing(index, users: alerts)) }
        let webhook = AlertChannel.webhook.rawValue
        while try await count(database, "SELECT COUNT(*) FROM outbox WHERE channel = \(webhook) AND status = 2") < alerts {
            try await Task.sleep(for: .milliseconds(10))  // safe: polling the benchmark's own progress
        }
        let seconds = nanoseconds(ContinuousClock.now - start) / 1e9
        let body = try await database.writer.read { db in try Data.fetchOne(db, sql: "SELECT body FROM outbox LIMIT 1") ?? Data() }
        running.cancel()
        _ = await running.result
        // Reference: the same number of unsigned POSTs of the same body with the same client, 16 in flight.
        let referenceStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func post() {
                guard next < alerts else { return }
                next += 1
                group.addTask {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.body = .bytes(ByteBuffer(bytes: body))
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(15))
                    _ = try await response.body.collect(upTo: 1 << 20)
                }
            }
            for _ in 0..<16 { post() }
            while try await group.next() != nil { post() }
        }
        let referenceSeconds = nanoseconds(ContinuousClock.now - referenceStart) / 1e9
        print("[\(round)] outbox delivery, \(alerts) alerts decided, signed and POSTed to a local receiver (16 in flight, plus the log channel): \(format(Double(alerts) / seconds / 1e3, decimals: 2)) k webhooks/s | reference: \(alerts) plain POSTs of the same body, 16 in flight \(format(Double(alerts) / referenceSeconds / 1e3, decimals: 2)) k/s | ratio \(format(seconds / referenceSeconds))x (target >= 2 k/s: \(Double(alerts) / seconds >= 2_000 ? "meets" : "MISSES"))")
    }
    await receiver.stop()

    // 3. Fare observed -> scored -> alert decision.
    try await runPipelineBenchmark(root: root, logger: logger)
}

try await runAlertsBenchmarks()
