import AlertsService
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
import ScoringService

// Fare observed → scored → alert decision in one process (issue #11 target
// ≥ 50 k fares/s), beside the same fares through scoring alone.

let pipelineRoutes = [("JFK", "LHR"), ("LIS", "LHR"), ("LAX", "NRT"), ("CDG", "JFK"), ("MAD", "LIS"), ("SFO", "LAX"), ("LHR", "DEL"), ("SYD", "LAX")]
/// Users who prefer each origin airport (seeded as alerts keeps them: KeptUsers.swift).
let usersPerAirport = 20

func pipelineFare(_ index: Int, now: Date, history: Bool) -> FareObserved {
    let (origin, destination) = pipelineRoutes[index % pipelineRoutes.count]
    var fare = FareObserved()
    fare.origin = origin
    fare.destination = destination
    fare.originCountry = "XX"
    fare.destinationCountry = "YY"
    fare.departureDate = CalendarDate.of(now, in: .gmt).adding(days: 40).message
    fare.cabin = .economy
    fare.price.currency = "EUR"
    // History: 80–130 EUR; measured fares: the same, and one in 50 at 40 EUR (an exceptional deal).
    let typical = Int64(8_000 + (index * 7_919) % 5_000)
    fare.price.minorUnits = !history && index % 50 == 0 ? 4_000 : typical
    fare.travellers = 1
    fare.provider = "simulated"
    fare.simulated = true
    fare.carrier = "BA"
    let daysAgo = history ? Int64(1 + index % 80) : 0
    fare.observedAtUnixMs = now.unixMilliseconds - daysAgo * 86_400_000
    fare.offerID = "o-\(history ? "h" : "m")\(index)"
    return fare
}

func openDatabase(_ directory: String, _ descriptor: ServiceDescriptor) throws -> ServiceDatabase {
    var migrations = ServiceMigrations()
    migrations.registerInbox()
    descriptor.migrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return try ServiceDatabase.open(service: descriptor.name, directory: directory, migrations: migrations)
}

/// Seconds for `fares` measured fares to be applied by scoring (and, with alerts, every exceptional deal's alerts decided).
func pipelineRound(_ directory: String, withAlerts: Bool, fares: Int, logger: Logger) async throws -> (seconds: Double, exceptional: Int, decisions: Int) {
    let now = Date()
    let bus = MessageBus()
    try serveDirectory(on: bus)
    let scoringDatabase = try openDatabase(directory + "/scoring", ScoringServiceEntry.descriptor)
    let scoring = try ScoringServiceEntry.descriptor.make(ServiceContext(bus: bus, database: scoringDatabase, logger: logger, clock: SystemWallClock()))
    try scoring.register(on: bus)
    var tasks = [Task { try await scoring.run() }]
    var alertsDatabase: ServiceDatabase?
    if withAlerts {
        let database = try openDatabase(directory + "/alerts", AlertsServiceEntry.descriptor)
        try seedPipelineAudience(database)
        let configuration = alertsConfiguration(["log.path": ConfigValue(.string("/dev/null"), isSecret: false)])
        let alerts = try AlertsServiceEntry.descriptor.make(ServiceContext(bus: bus, database: database, logger: logger, clock: SystemWallClock(), configuration: configuration))
        try alerts.register(on: bus)
        tasks.append(Task { try await alerts.run() })
        alertsDatabase = database
    }
    defer { for task in tasks { task.cancel() } }
    let exceptional = bus.subscribe(ExceptionalDeal.self, bufferSize: 65_536)
    let counter = Task { var seen = 0; for await _ in exceptional { seen += 1 }; return seen }
    // History first (not measured): 80 days of fares on every route.
    let history = 40_000
    for index in 0..<history { try await bus.publish(pipelineFare(index, now: now, history: true)) }
    while try await appliedEvents(scoringDatabase) < history {
        try await Task.sleep(for: .milliseconds(10))  // safe: polling the benchmark's own progress
    }
    let start = ContinuousClock.now
    for index in 0..<fares { try await bus.publish(pipelineFare(index, now: now, history: false)) }
    while try await appliedEvents(scoringDatabase) < history + fares {
        try await Task.sleep(for: .milliseconds(5))  // safe: polling the benchmark's own progress
    }
    var decisions = 0
    if let alertsDatabase {
        // Every exceptional deal is published (scoring's event outbox is
        // empty once every subscriber, alerts included, is done with each).
        while try scoringDatabase.waitingEventCount() > 0 {
            try await Task.sleep(for: .milliseconds(5))  // safe: polling the benchmark's own progress
        }
        exceptional.cancel()
        let published = await counter.value
        while try await appliedEvents(alertsDatabase) < published {
            try await Task.sleep(for: .milliseconds(5))  // safe: polling the benchmark's own progress
        }
        decisions = try await count(alertsDatabase, "SELECT COALESCE(MAX(rowid), 0) FROM alert")
        return (nanoseconds(ContinuousClock.now - start) / 1e9, published, decisions)
    }
    let seconds = nanoseconds(ContinuousClock.now - start) / 1e9
    exceptional.cancel()
    return (seconds, await counter.value, 0)
}

func runPipelineBenchmark(root: String, logger: Logger) async throws {
    let fares = 50_000
    for round in 1...3 {
        let reference = try await pipelineRound("\(root)/pipeline-ref-\(round)", withAlerts: false, fares: fares, logger: logger)
        let measured = try await pipelineRound("\(root)/pipeline-\(round)", withAlerts: true, fares: fares, logger: logger)
        print("[\(round)] fare observed -> scored -> alert decision, \(fares) fares (\(measured.exceptional) exceptional deals, \(measured.decisions) alert decisions for \(usersPerAirport) users per origin): \(format(Double(fares) / measured.seconds / 1e3)) k fares/s | reference: the same fares through scoring alone \(format(Double(fares) / reference.seconds / 1e3)) k/s | ratio \(format(measured.seconds / reference.seconds))x (target >= 50 k/s: \(Double(fares) / measured.seconds >= 50_000 ? "meets" : "MISSES"))")
    }
}
