// A node for crash tests: a real process the tests can `kill -9` in a
// precise state (an effect applied but not acknowledged, durable events
// journaled but not delivered, a request in flight). It joins a hub as a
// spoke and reports each step on stdout, one line at a time, so a test can
// wait for the state it wants to kill. Not shipped; only tests run it.
import ArgumentParser
import FareLensBus
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import FareLensWire
import Foundation
#if NATS
import FareLensNATS
#endif
import GRDB

@main
struct TestNode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farelens-test-node",
        abstract: "A spoke in a precise state, for tests that kill it with SIGKILL.",
        subcommands: [Consume.self, PublishWhileAway.self, HoldRequests.self, OutboxPublisher.self, CheckpointWrites.self]
    )
}

/// Options every mode shares.
struct NodeOptions: ParsableArguments {
    @Option(help: "The hub's socket.") var socket: String = ""
    @Option(help: "This node's name.") var name: String
    @Option(help: "Join this NATS server instead of a hub (a build with the NATS trait).") var natsUrl: String?
    @Option(help: "The NATS namespace.") var natsNamespace = "farelens"
    @Option(help: "JetStream's wait before handing an unsettled durable event over again, in ms.") var natsAckWaitMs = 30_000
}

/// Joins the hub (or, with `--nats-url`, the NATS namespace) and returns
/// whether it is joined now.
func connect(_ bus: MessageBus, _ options: NodeOptions) throws -> @Sendable () -> Bool {
    guard let url = options.natsUrl else {
        let spoke = join(bus, options)
        return { spoke.isConnected }
    }
    #if NATS
    var settings = NATSSettings(urls: [url], namespace: options.natsNamespace)
    settings.heartbeat = .milliseconds(500)
    settings.ackWait = .milliseconds(options.natsAckWaitMs)
    let joined = Locked(false)
    let transport = try NATSTransport(bus: bus, settings: settings, identity: testIdentity(options.name), logger: quietLogger()) { joined.set(true) }
    bus.attach(transport)
    Task { try await transport.run() }
    return { joined.get() }
    #else
    _ = url
    throw ValidationError("--nats-url needs a build with the NATS trait (swift build --traits NATS)")
    #endif
}

/// Writes one line to stdout at once, unbuffered (stdout is a pipe in tests);
/// a test that stopped reading does not crash the node.
func report(_ line: String) {
    try? StandardStreams.writeOutput(line + "\n")
}

/// Joins the hub as a spoke that reconnects, and reports "joined" once.
func join(_ bus: MessageBus, _ options: NodeOptions, journal: OutboxJournal? = nil) -> BridgeSpoke {
    var configuration = BridgeConfiguration(socketPath: options.socket)
    configuration.reconnectBackoff = (.milliseconds(10), .milliseconds(100))
    configuration.outboxJournal = journal
    let spoke = BridgeSpoke(bus: bus, configuration: configuration, identity: testIdentity(options.name), logger: quietLogger())
    bus.attach(spoke)
    Task { try await spoke.run() }
    return spoke
}

/// How long a mode waits to be killed before it exits by itself, so a test
/// that fails before its kill leaves no process behind for long.
let waitToBeKilled = Duration.seconds(120)

func waitUntil(_ condition: () -> Bool) async throws {
    while !condition() { try await Task.sleep(for: .milliseconds(5)) }  // safe: test-only poll of a connection flag; the test bounds the wait
}

func makeBus(_ name: String) -> MessageBus {
    var configuration = BusConfiguration()
    configuration.nodeName = name
    let bus = MessageBus(configuration: configuration)
    bus.registerEventTypes([PriceDropped.self])
    return bus
}

/// Consumes `PriceDropped` through the inbox: each event's effect (a row in
/// `effect`) and its inbox record are one transaction. Prints
/// `applied N` or `redelivered N, skipped`; with `--hold-after N` it stops
/// after applying event N without asking for the next one, so N is applied
/// but never acknowledged, and prints `holding N`.
struct Consume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Consume PriceDropped exactly once through the inbox.")
    @OptionGroup var node: NodeOptions
    @Option(help: "The consumer's database directory.") var dataDir: String
    @Option(help: "Stop after applying this sequence, without acknowledging it.") var holdAfter: Int?

    static let migrations: ServiceMigrations = {
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        migrations.register("test-node-001-effect") { db in
            try db.create(table: "effect") { table in
                table.column("sequence", .integer).notNull()
                table.column("route", .text).notNull()
            }
        }
        return migrations
    }()

    func run() async throws {
        let database = try ServiceDatabase.open(service: "test-consumer", directory: dataDir, migrations: Self.migrations)
        let bus = makeBus(node.name)
        let subscription = bus.subscribe(PriceDropped.self)
        let joined = try connect(bus, node)
        try await waitUntil { joined() }
        report("joined")
        for await delivery in subscription {
            let event = delivery.event
            let key = InboxKey(delivery.metadata.id)
            let applied: Void? = try database.applyOnce(key, consumer: "test-consumer") { db in
                try db.execute(sql: "INSERT INTO effect (sequence, route) VALUES (?, ?)", arguments: [event.sequence, event.route])
            }
            report(applied == nil ? "redelivered \(event.sequence), skipped" : "applied \(event.sequence)")
            if event.sequence == holdAfter {
                report("holding \(event.sequence)")
                try await Task.sleep(for: waitToBeKilled)  // safe: holds the event unacknowledged until the test kills this process (bounded)
            }
        }
    }
}

/// Joins, waits until the hub is gone, publishes `--count` durable
/// `PriceDropped` events (journaled, unacknowledged), prints `published N`
/// and waits to be killed. Without `--count` it only joins and stays, so a
/// restarted publisher redelivers its journal.
struct PublishWhileAway: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Publish durable events while the hub is away.")
    @OptionGroup var node: NodeOptions
    @Option(help: "The outbox journal file.") var journal: String
    @Option(help: "How many events to publish once the hub is gone.") var count: Int?

    func run() async throws {
        let bus = makeBus(node.name)
        let spoke = join(bus, node, journal: try OutboxJournal(path: journal, logger: quietLogger()))
        try await waitUntil { spoke.isConnected }
        report("joined")
        if let count {
            try await waitUntil { !spoke.isConnected }
            for sequence in 1 ... count { try await bus.publish(PriceDropped(route: "OPO-LHR", sequence: sequence)) }
            report("published \(count)")
        }
        try await Task.sleep(for: waitToBeKilled)  // safe: until the test kills this process (bounded by waitToBeKilled)
    }
}

/// Serves `SlowRequest` and never answers, printing `holding LABEL` for each
/// request, so a test can kill this node with requests in flight.
struct HoldRequests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the slow address and never answer.")
    @OptionGroup var node: NodeOptions

    func run() async throws {
        let bus = makeBus(node.name)
        try bus.serve(SlowRequest.self, execution: .isolated) { request, _ in
            report("holding \(request.label)")
            try await Task.sleep(for: waitToBeKilled)  // safe: keeps the request in flight until the test kills this process (bounded)
            return EchoResponse(text: request.label)
        }
        let joined = try connect(bus, node)
        try await waitUntil { joined() }
        report("joined")
        try await Task.sleep(for: waitToBeKilled)  // safe: until the test kills this process (bounded by waitToBeKilled)
    }
}

/// A service's event outbox in a spoke: with `--commit N` it writes N durable
/// `PriceDropped` events (sequences 1...N) into the outbox of its database,
/// one transaction each, and prints `committed N`; with `--hold` it then
/// waits to be killed without publishing anything. Otherwise (and without
/// `--commit`: a restarted publisher) it runs the outbox's relay, in
/// batches of `--batch-size`, until killed. With `--hold-locally-at N` a
/// subscriber in this process consumes the events and stops at event N
/// without asking for the next, printing `holding N`: this node is not
/// done with N, so N's batch stays in the outbox. Its bridge journals like
/// a node's, in the same directory.
struct OutboxPublisher: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Publish PriceDropped through a service's event outbox.")
    @OptionGroup var node: NodeOptions
    @Option(help: "The publisher's database directory.") var dataDir: String
    @Option(help: "How many events to commit first.") var commit: Int?
    @Flag(help: "Commit, then wait to be killed without publishing.") var hold = false
    @Option(help: "Events the relay publishes per round.") var batchSize = 5
    @Option(help: "A local subscriber holds this event, unfinished.") var holdLocallyAt: Int?

    static let migrations: ServiceMigrations = {
        var migrations = ServiceMigrations()
        migrations.registerEventOutbox(named: "test-publisher-001-event-outbox")
        return migrations
    }()

    func run() async throws {
        let database = try ServiceDatabase.open(service: "test-publisher", directory: dataDir, migrations: Self.migrations)
        let bus = makeBus(node.name)
        let spoke = join(bus, node, journal: try OutboxJournal(path: dataDir + "/bridge-outbox.sqlite", logger: quietLogger()))
        try await waitUntil { spoke.isConnected }
        report("joined")
        let outbox = EventOutbox(
            owner: "test-publisher", database: database, bus: bus, types: [PriceDropped.self], clock: SystemWallClock(), batchSize: batchSize,
            logger: quietLogger())
        if let commit {
            for sequence in 1 ... commit {
                try await database.writer.write { db in try outbox.append(PriceDropped(route: "LHR-SIN", sequence: sequence), in: db) }
            }
            report("committed \(commit)")
        }
        if let holdLocallyAt {
            let local = bus.subscribe(PriceDropped.self)
            Task {
                for await delivery in local where delivery.event.sequence == holdLocallyAt {
                    report("holding \(holdLocallyAt)")
                    try await Task.sleep(for: waitToBeKilled)  // safe: holds the event unfinished until the test kills this process (bounded)
                }
            }
        }
        if !hold {
            Task { await outbox.run() }
            report("relaying")
        }
        try await Task.sleep(for: waitToBeKilled)  // safe: until the test kills this process (bounded by waitToBeKilled)
    }
}

/// Writes rows one transaction at a time into a service database whose
/// log is checkpointed after every commit by its checkpointer
/// (docs/decisions/0023), so that checkpoints run all the while and a kill
/// may land in one. Prints `committed N checkpointed K` every 100 rows (row
/// N committed, K checkpoints done since it started); a restarted writer
/// goes on from the last row it finds.
///
/// With `--kill-at-row N` it sends itself SIGKILL right after committing
/// row N (after printing that row's line), while its checkpointer copies
/// that commit's log: the crash comes at a row the test chose, not when a
/// loaded test process gets round to it. (Killed from outside, the writer
/// wrote on until the test's next poll: up to 1 GB, and every other test's
/// commits stalled behind its checkpoints, in a loaded parallel run.)
struct CheckpointWrites: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write rows while the log is checkpointed off the writer, until killed.")
    @Option(help: "The database's directory.") var dataDir: String
    @Option(help: "Send this process SIGKILL right after committing this row (0: write until killed from outside).") var killAtRow = 0

    static let migrations: ServiceMigrations = {
        var migrations = ServiceMigrations()
        migrations.register("test-writer-001-row") { db in
            try db.create(table: "row") { table in
                table.primaryKey("sequence", .integer)
                table.column("bytes", .blob).notNull()
            }
        }
        return migrations
    }()

    func run() async throws {
        let database = try ServiceDatabase.open(
            service: "test-writer", directory: dataDir, migrations: Self.migrations, checkpointing: WALCheckpointing(triggerFrames: 1, backstopFrames: 1_000_000))
        let bytes = Data(repeating: 0x3C, count: 6_000)
        let end = ContinuousClock.now + waitToBeKilled
        // A restarted writer goes on after the last row it finds.
        var sequence = try database.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(sequence), 0) FROM row") ?? 0 }
        while ContinuousClock.now < end {
            sequence += 1
            try database.write { [sequence] db in try db.execute(sql: "INSERT INTO row (sequence, bytes) VALUES (?, ?)", arguments: [sequence, bytes]) }
            if sequence % 100 == 0 || sequence == killAtRow {
                report("committed \(sequence) checkpointed \(database.checkpointStatistics?.byCheckpointer ?? 0)")
            }
            if sequence == killAtRow { kill(getpid(), SIGKILL) }
        }
    }
}
