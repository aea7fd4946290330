import AlertsService
import BenchmarkHarness
import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensWire
import Foundation
import Logging

// Alert decisions with the alerts service on a spoke and everything it talks
// to (the crossings' publisher, search's directory) on the hub, over a real
// Unix socket in one process: what a batch costs when its events cross the
// bridge (its recipients' settings are kept by alerts, not asked). The
// same-run reference is one request round trip across the same bridge.

func runSplitDecisionsBenchmark(root: String, logger: Logger) async throws {
    for round in 1...3 {
        let events = 20_000, users = 5_000
        let socketPath = "/tmp/flab-\(getpid())-\(round).sock"
        defer { unlink(socketPath) }
        let hubBus = MessageBus(), spokeBus = MessageBus()
        try serveDirectory(on: hubBus)
        let database = try openDatabase("\(root)/split-\(round)")
        try seedKeptUsers(database, ids: benchmarkUserIDs(users, prefixes: ["q"]) + ["q-warm-0"])
        let context = ServiceContext(
            bus: spokeBus, database: database, logger: logger, clock: SystemWallClock(),
            configuration: alertsConfiguration(["log.path": ConfigValue(.string("/dev/null"), isSecret: false)]))
        // Made before the spoke joins, so its subscriptions travel in the hello.
        let service = try AlertsServiceEntry.descriptor.make(context)
        try service.register(on: spokeBus)

        let (spoke, bridgeTasks) = await startBridgePair(hubBus: hubBus, spokeBus: spokeBus, socketPath: socketPath, logger: logger)
        let running = Task { try await service.run() }
        defer {
            running.cancel()
            for task in bridgeTasks { task.cancel() }
        }
        let joinBy = ContinuousClock.now + .seconds(10)
        while !spoke.hosts(AirportLookupRequest.address) {
            guard ContinuousClock.now < joinBy else { throw BusError.serviceUnavailable(AirportLookupRequest.address, reason: "spoke did not join in 10 s") }
            try await Task.sleep(for: .milliseconds(5))  // safe: bounded wait for the benchmark's own mesh
        }
        // Warm up until a crossing published on the hub is decided on the spoke (the hub has learnt the subscription).
        while try await count(database, "SELECT COUNT(*) FROM alert") == 0 {
            guard ContinuousClock.now < joinBy else { throw BusError.serviceUnavailable(AirportLookupRequest.address, reason: "no crossing decided in 10 s") }
            try await hubBus.publish(crossing(0, users: 1, prefix: "q-warm-"))
            try await Task.sleep(for: .milliseconds(20))  // safe: bounded wait for the benchmark's own mesh
        }
        let warm = try await count(database, "SELECT COUNT(*) FROM alert")

        let start = ContinuousClock.now
        for index in 0..<events { try await hubBus.publish(crossing(index, users: users, prefix: "q")) }
        while try await count(database, "SELECT COUNT(*) FROM alert") < events + warm {
            guard ContinuousClock.now < start + .seconds(300) else { throw BusError.timeout("all crossings decided", after: .seconds(300)) }
            try await Task.sleep(for: .milliseconds(10))  // safe: polling the benchmark's own progress
        }
        let seconds = nanoseconds(ContinuousClock.now - start) / 1e9

        // Reference: request round trips from the spoke across the same bridge (an airport lookup, answered from memory).
        var request = AirportLookupRequest()
        request.code = "JFK"
        var samples: [Double] = []
        for _ in 0..<2_000 {
            let begin = ContinuousClock.now
            _ = try await spokeBus.request(request)
            samples.append(nanoseconds(ContinuousClock.now - begin) / 1e3)
        }
        samples.sort()
        let roundTrip = samples[samples.count / 2]
        let perBatchBefore = roundTrip * 256 / 1e3
        print("[\(round)] alert decisions across the bridge, \(events) crossings published on the hub for \(users) users, decided by alerts on a spoke (the users' settings kept by alerts, nothing asked per batch; all held): \(format(Double(events) / seconds / 1e3)) k decisions/s | reference: one request round trip across the same bridge, p50 \(format(roundTrip)) µs; one per user would make \(format(perBatchBefore)) ms of round trips per batch of 256 distinct users, a ceiling of \(format(256 / perBatchBefore)) k decisions/s before any work")
    }
}
