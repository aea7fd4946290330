// nats-benchmarks: the bus over NATS (issue #57) beside NATS's own C
// client, in the same run, against the same nats-server:
//
//   request/reply  sequential p50 and p99 of a 64-byte echo (BytesEchoRequest,
//                  the bytes as they are), caller on the pool in this
//                  process and handler in another, both over
//                  NATSTransport; beside nats-reference's
//                  natsConnection_Request of the same 64 bytes between two
//                  processes (target: p50 at most 1.3x).
//   durable        durable publishes (FareObserved, search's event per
//                  offer, protobuf, into JetStream, each
//                  returning once stored), one task, 64 and 1,024 tasks;
//                  batches as event outboxes publish them (publish(batch:),
//                  rounds of 256 and 1,024, one outbox and four), and
//                  through a DeferredPublisher; beside
//                  nats-reference's js_PublishAsync floor (target: at least
//                  70% of its rate).
//
// Rounds alternate reference and candidate; medians and ratios are printed.
// FARELENS_BENCH_ONLY=request or =durable runs that part alone, =batches
// only the batches and the DeferredPublisher (profiling).
// Needs nats-server and Benchmarks/.build/nats-reference
// (Benchmarks/nats-reference/build.sh).
//
//   swift run -c release --package-path Benchmarks nats-benchmarks [rounds]
import BenchmarkHarness
import FareLensBus
import FareLensMessages
import FareLensNATS
import FareLensTesting
import FareLensWire
import Foundation

let arguments = CommandLine.arguments
if arguments.count >= 4, arguments[1] == "respond" {
    try await respond(url: arguments[2], namespace: arguments[3])
    exit(0)
}
let rounds = arguments.count >= 2 ? Int(arguments[1]) ?? 3 : 3

/// The handler process: the bytes echo over NATS until its input ends.
func respond(url: String, namespace: String) async throws {
    let bus = makeBus("responder")
    try bus.serve(BytesEchoRequest.self) { request, _ in BytesEchoResponse(bytes: request.bytes) }
    let joined = Locked(false)
    let transport = try NATSTransport(bus: bus, settings: settings(url, namespace), identity: testIdentity("responder"), logger: quietLogger()) { joined.set(true) }
    bus.attach(transport)
    Task { try await transport.run() }
    while !joined.get() { try await Task.sleep(for: .milliseconds(5)) }  // safe: a benchmark's start-up, bounded by the parent's wait for "listening"
    FileHandle.standardOutput.write(Data("listening\n".utf8))
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            while readLine() != nil {}
            done.resume()
        }
    }
}

func makeBus(_ name: String) -> MessageBus {
    var configuration = BusConfiguration()
    configuration.nodeName = name
    configuration.defaultDeadline = .seconds(30)
    let bus = MessageBus(configuration: configuration)
    bus.registerEventTypes([FareObserved.self])
    return bus
}

func settings(_ url: String, _ namespace: String) -> NATSSettings {
    var settings = NATSSettings(urls: [url], namespace: namespace)
    settings.heartbeat = .milliseconds(500)
    return settings
}

/// Starts `program` and waits for its "listening" line; closing its input stops it.
func startResponder(_ program: String, _ arguments: [String]) throws -> (Process, Pipe) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let input = Pipe(), printed = Pipe()
    process.standardInput = input
    process.standardOutput = printed
    try process.run()
    guard String(decoding: printed.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("listening") else {
        throw NATSBenchmarkFailure("\(program) \(arguments.first ?? "") did not start")
    }
    return (process, input)
}

let binaryFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let reference = [
    ProcessInfo.processInfo.environment["FARELENS_NATS_REFERENCE"],
    binaryFolder.deletingLastPathComponent().appendingPathComponent("nats-reference").path,
    binaryFolder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("nats-reference").path,
].compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
guard let reference else {
    print("nats-benchmarks: no nats-reference binary: run Benchmarks/nats-reference/build.sh (needs libnats-dev)")
    exit(1)
}
let server = try await TestNATSServer.start()
print("nats-benchmarks: \(try programOutput("/usr/sbin/nats-server", ["--version"])), nats.c \(try programOutput(reference, ["version"])), \(rounds) rounds, reference and candidate alternating")

let only = ProcessInfo.processInfo.environment["FARELENS_BENCH_ONLY"]

// MARK: Request/reply
if only == nil || only == "request" {

let requestBytes = 64
let (candidateResponder, candidateInput) = try startResponder(CommandLine.arguments[0], ["respond", server.url, "bench"])
let (referenceResponder, referenceInput) = try startResponder(reference, ["respond", server.url, "bench.reference", String(requestBytes)])
let caller = makeBus("caller")
let callerTransport = try NATSTransport(bus: caller, settings: settings(server.url, "bench"), identity: testIdentity("caller"), logger: quietLogger())
caller.attach(callerTransport)
let callerTask = Task { try await callerTransport.run() }
while callerTransport.knownNodes["responder"] == nil { try await Task.sleep(for: .milliseconds(5)) }  // safe: start-up, the responder announced itself before "listening"
// The same 64 bytes each way as the reference, as they are (no JSON, no protobuf).
let payload = [UInt8](repeating: 0x78, count: requestBytes)
for _ in 0..<2_000 { _ = try await caller.request(BytesEchoRequest(bytes: payload)) }

let count = 5_000
var referenceP50: [Double] = [], referenceP99: [Double] = [], candidateP50: [Double] = [], candidateP99: [Double] = []
for _ in 0..<rounds {
    let fields = try programOutput(reference, ["latency", server.url, "bench.reference", String(requestBytes), String(count)]).split(separator: " ").compactMap { Double($0) }
    referenceP50.append(fields[0])
    referenceP99.append(fields[1])
    // On the pool, as the gateway's handlers call, not on the main actor.
    let samples = try await Task.detached { () async throws -> [Double] in
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = ContinuousClock.now
            _ = try await caller.request(BytesEchoRequest(bytes: payload))
            samples.append(nanoseconds(ContinuousClock.now - start))
        }
        return samples
    }.value
    candidateP50.append(percentile(samples, 0.5))
    candidateP99.append(percentile(samples, 0.99))
}
let p50Ratio = median(candidateP50) / median(referenceP50)
print("request/reply, \(count) sequential x \(rounds) rounds, medians:")
print("  nats.c request/reply        p50 \(format(median(referenceP50) / 1000)) µs  p99 \(format(median(referenceP99) / 1000)) µs")
print("  FareLens over NATS          p50 \(format(median(candidateP50) / 1000)) µs  p99 \(format(median(candidateP99) / 1000)) µs")
print("  p50 ratio \(format(p50Ratio, decimals: 2))x (target <= 1.30x): \(p50Ratio <= 1.3 ? "met" : "MISSED")")
try? candidateInput.fileHandleForWriting.close()
try? referenceInput.fileHandleForWriting.close()
candidateResponder.waitUntilExit()
referenceResponder.waitUntilExit()
callerTask.cancel()
}

// MARK: Durable publish
if only == nil || only == "durable" || only == "batches" {

let publisher = makeBus("publisher")
let publisherTransport = try NATSTransport(bus: publisher, settings: settings(server.url, "durable"), identity: testIdentity("publisher"), logger: quietLogger())
publisher.attach(publisherTransport)
let publisherTask = Task { try await publisherTransport.run() }
try await Task.sleep(for: .milliseconds(500))  // safe: lets the publisher's consumer bind before the first round
// 64 publishing tasks, and 1,024: the floor keeps up to 4,096 messages in
// flight, and a node's publishes in flight are its publishing tasks.
let sequentialCount = only == "batches" ? 0 : 3_000, concurrentCount = 20_000, taskCounts = only == "batches" ? [] : [64, 1_024]
// Batches (`publish(batch:)`) as event outboxes publish their rounds: one
// outbox of the `event_outbox` table (256 a round), one of a service's own
// table (1,024), and four of those at once (a node hosting four services).
let batchShapes = [(outboxes: 1, size: 256), (outboxes: 1, size: 1_024), (outboxes: 4, size: 1_024)]
var floor: [Double] = [], floorWithIDs: [Double] = [], sequential: [Double] = [], concurrent: [[Double]] = taskCounts.map { _ in [] }, batched: [[Double]] = batchShapes.map { _ in [] }
// And through a DeferredPublisher, as search, scoring and alerts publish
// (handlers enqueue; its run() publishes what waits as batches of 1,024).
var deferred: [Double] = []
var costs = MessageCosts(server: server.processIdentifier)
var sequence = 0
for round in 0..<rounds {
    var meter = costs.start(reference: true)
    floor.append(Double(try programOutput(reference, ["jspublish", server.url, "REFERENCE", "reference.events", "100", String(concurrentCount)]).split(separator: " ")[0]) ?? .nan)
    costs.stop(meter, "floor", messages: concurrentCount)
    // The same with a unique Nats-Msg-Id on each message, as every FareLens durable event carries (the server's dedupe).
    meter = costs.start(reference: true)
    floorWithIDs.append(Double(try programOutput(reference, ["jspublish", server.url, "REFERENCE", "reference.events", "100", String(concurrentCount), "ids"]).split(separator: " ")[0]) ?? .nan)
    costs.stop(meter, "floor with ids", messages: concurrentCount)
    _ = round
    var start = ContinuousClock.now
    for _ in 0..<sequentialCount {
        sequence += 1
        try await publisher.publish(observedFare(sequence))
    }
    sequential.append(nanoseconds(ContinuousClock.now - start) / Double(sequentialCount))
    for (slot, tasks) in taskCounts.enumerated() {
        start = ContinuousClock.now
        let base = sequence
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in stride(from: task, to: concurrentCount, by: tasks) {
                        try await publisher.publish(observedFare(base + index + 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        sequence += concurrentCount
        concurrent[slot].append(nanoseconds(ContinuousClock.now - start) / Double(concurrentCount))
    }
    for (slot, shape) in batchShapes.enumerated() {
        // Each outbox's share in rounds of `size`, under ids of its own, made
        // before the clock starts (a relay makes them from the rows it read):
        // what is timed is publish(batch:), round after round.
        let share = concurrentCount / shape.outboxes
        let roundsByOutbox = (0..<shape.outboxes).map { outbox in
            stride(from: 0, to: share, by: shape.size).map { first in
                (first..<min(first + shape.size, share)).map { index in
                    let number = sequence + outbox * share + index + 1
                    return MessageBus.KeptIDEvent(
                        event: observedFare(number), id: EventID(publisher: "bench.outbox#\(outbox)", sequence: UInt64(number)),
                        traceID: TraceID.random(), onSettled: {})
                }
            }
        }
        meter = costs.start(reference: false)
        start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for outboxRounds in roundsByOutbox {
                group.addTask {
                    for round in outboxRounds {
                        if let refusal = await publisher.publish(batch: round).refusal { throw refusal }
                    }
                }
            }
            try await group.waitForAll()
        }
        batched[slot].append(nanoseconds(ContinuousClock.now - start) / Double(concurrentCount))
        costs.stop(meter, batchName(shape), messages: concurrentCount)
        sequence += concurrentCount
    }
    let queue = DeferredPublisher(bus: publisher, owner: "bench", capacity: concurrentCount, logger: quietLogger())
    meter = costs.start(reference: false)
    start = ContinuousClock.now
    for index in 0..<concurrentCount { queue.enqueue(observedFare(sequence + index + 1)) }
    queue.finish()
    await queue.run()
    deferred.append(nanoseconds(ContinuousClock.now - start) / Double(concurrentCount))
    costs.stop(meter, "a DeferredPublisher", messages: concurrentCount)
    sequence += concurrentCount
}
let floorRate = 1e9 / median(floor)
print("durable publish (stored by JetStream before it returns), medians of \(rounds) rounds:")
let floorWithIDsRate = 1e9 / median(floorWithIDs)
print("  nats.c js_PublishAsync floor   \(format(floorRate, decimals: 0)) msg/s (\(concurrentCount) messages, 100 bytes)")
print("  the same with Nats-Msg-Id      \(format(floorWithIDsRate, decimals: 0)) msg/s (\(format(100 * floorWithIDsRate / floorRate, decimals: 0))% of the floor)")
let batchRows = zip(batchShapes, batched).map { shape, perMessage in ("FareLens, \(batchName(shape))", perMessage) }
for (name, perMessage) in (sequentialCount == 0 ? [] : [("FareLens, 1 task", sequential)]) + zip(taskCounts, concurrent).map({ ("FareLens, \($0.0) tasks", $0.1) }) + batchRows
    + [("FareLens, a DeferredPublisher", deferred)]
{
    let rate = 1e9 / median(perMessage)
    print("  \(name.padding(toLength: 42, withPad: " ", startingAt: 0)) \(format(rate, decimals: 0)) msg/s = \(format(100 * rate / floorRate, decimals: 0))% of the floor (target >= 70%): \(rate >= 0.7 * floorRate ? "met" : "MISSED"); \(format(100 * rate / floorWithIDsRate, decimals: 0))% of it with ids")
}
print("  CPU per message (medians; client: the publishing process, server: nats-server's threads):")
for name in costs.order {
    print("    \(name.padding(toLength: 40, withPad: " ", startingAt: 0)) client \(format(costs.client(name) / 1000, decimals: 2)) µs  server \(format(costs.server(name) / 1000, decimals: 2)) µs")
}
publisherTask.cancel()
}
server.kill()

/// The durable event published: search's `FareObserved` for one offer
/// (about 90 bytes of protobuf), as a sweep makes thousands of; `number`
/// tells them apart.
func observedFare(_ number: Int) -> FareObserved {
    var fare = FareObserved()
    fare.origin = "LIS"
    fare.destination = "JFK"
    fare.originCountry = "PT"
    fare.destinationCountry = "US"
    fare.departureDate.year = 2027
    fare.departureDate.month = 3
    fare.departureDate.day = 14
    fare.cabin = .economy
    fare.price.currency = "EUR"
    fare.price.minorUnits = 41_900 + Int64(number % 1_000)
    fare.travellers = 1
    fare.provider = "simulated"
    fare.simulated = true
    fare.carrier = "TP"
    fare.stops = 0
    fare.durationMinutes = 470
    fare.offerID = "of-\(number)"
    fare.observedAtUnixMs = 1_796_113_273_823 + Int64(number)
    fare.purpose = .backgroundSweep
    return fare
}

func batchName(_ shape: (outboxes: Int, size: Int)) -> String {
    "\(shape.outboxes == 1 ? "1 outbox" : "\(shape.outboxes) outboxes"), batches of \(shape.size)"
}

/// The CPU each message cost the publishing side (this process, or the
/// reference program) and nats-server, per named run, over the rounds.
struct MessageCosts {
    struct Meter {
        let reference: Bool
        let client: Double
        let server: Double?
    }
    let server: Int32?
    private(set) var order: [String] = []
    private var clientSamples: [String: [Double]] = [:]
    private var serverSamples: [String: [Double]] = [:]

    init(server: Int32?) {
        self.server = server
    }

    func start(reference: Bool) -> Meter {
        Meter(reference: reference, client: reference ? CPUTime.childrenNanoseconds : CPUTime.ownNanoseconds, server: server.flatMap(CPUTime.ofProcess))
    }

    mutating func stop(_ meter: Meter, _ name: String, messages: Int) {
        let client = (meter.reference ? CPUTime.childrenNanoseconds : CPUTime.ownNanoseconds) - meter.client
        if clientSamples[name] == nil { order.append(name) }
        clientSamples[name, default: []].append(client / Double(messages))
        if let before = meter.server, let after = server.flatMap(CPUTime.ofProcess) {
            serverSamples[name, default: []].append((after - before) / Double(messages))
        }
    }

    func client(_ name: String) -> Double { median(clientSamples[name] ?? [.nan]) }
    func server(_ name: String) -> Double { median(serverSamples[name] ?? [.nan]) }
}

/// Why the benchmark could not run.
struct NATSBenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
