import BenchmarkHarness
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Bridge benchmarks (issue #3): request/reply latency and pipelined
// throughput through a hub and a spoke joined over a real Unix socket, and
// frame compression of a search response. Each figure is printed on one
// line beside a reference measured in the same run (docs/decisions/0002).

/// The two ends of the bridge, both in this process.
struct Mesh {
    let hubBus: MessageBus
    let spokeBus: MessageBus
    let tasks: [Task<Void, any Error>]
    let socketPath: String
}

func makeBus(_ name: String) -> MessageBus {
    var configuration = BusConfiguration()
    configuration.nodeName = name
    configuration.defaultDeadline = .seconds(30)
    return MessageBus(configuration: configuration)
}

func identity(_ name: String) -> NodeIdentity {
    NodeIdentity(nodeName: name, softwareVersion: "bench", startedAtUnixMs: 0)
}

/// Starts a hub (serving `EchoRequest`) and a spoke, and waits until the
/// spoke has joined and learnt the hub's address.
@concurrent func startMesh(socketPath: String) async throws -> Mesh {
    let hubBus = makeBus("bench-hub"), spokeBus = makeBus("bench-spoke")
    try hubBus.serve(EchoRequest.self) { request, _ in EchoResponse(bytes: request.bytes) }
    var logger = Logger(label: "wire-benchmarks")
    logger.logLevel = .error
    let (spoke, tasks) = await startBridgePair(hubBus: hubBus, spokeBus: spokeBus, socketPath: socketPath, logger: logger)
    let end = ContinuousClock.now + .seconds(10)
    while !spoke.hosts(EchoRequest.address) {
        guard ContinuousClock.now < end else { throw BusError.serviceUnavailable(EchoRequest.address, reason: "spoke did not join in 10 s") }
        try await Task.sleep(for: .milliseconds(5))
    }
    return Mesh(hubBus: hubBus, spokeBus: spokeBus, tasks: tasks, socketPath: socketPath)
}

/// Size of the frame a spoke sends for one request (envelope fields as
/// `WireEnvelope.request` and the connection fill them).
func requestFrameBytes(address: ServiceAddress = EchoRequest.address, typeName: String = EchoRequest.wireTypeName, payload: [UInt8]) throws -> Int {
    var envelope = WireEnvelope()
    envelope.kind = .request
    envelope.correlationID = 20_000
    envelope.address = address.name
    envelope.typeName = typeName
    envelope.deadlineMicros = 29_999_000
    envelope.trace.traceIDHigh = 0x1234_5678_9ABC_DEF0
    envelope.trace.traceIDLow = 0x0FED_CBA9_8765_4321
    envelope.payload = Data(payload)
    return FrameCodec.headerBytes + (try EnvelopeCoding.encode(envelope)).readableBytes
}

/// Sequential request/reply on `bus`; one latency sample (ns) per request.
@concurrent func requestLatencies(_ bus: MessageBus, count: Int, payload: [UInt8]) async -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    let clock = ContinuousClock()
    for _ in 0..<count {
        let start = clock.now
        do {
            let response = try await bus.request(EchoRequest(bytes: payload))
            blackHole(response)
        } catch {
            fatalError("request failed: \(error)")
        }
        samples.append(nanoseconds(clock.now - start))
    }
    return samples
}

/// `total` requests from `inFlight` concurrent callers; returns ns per request.
@concurrent func pipelined(_ bus: MessageBus, total: Int, inFlight: Int, payload: [UInt8]) async -> Double {
    let perCaller = total / inFlight
    return await timeOnce(operations: perCaller * inFlight) {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<inFlight {
                group.addTask {
                    for _ in 0..<perCaller {
                        do {
                            let response = try await bus.request(EchoRequest(bytes: payload))
            blackHole(response)
                        } catch {
                            fatalError("request failed: \(error)")
                        }
                    }
                }
            }
        }
    }
}

func micros(_ nanos: Double) -> String { format(nanos / 1000) }
func verdict(_ meets: Bool) -> String { meets ? "MEETS" : "MISSES" }

@concurrent func runLatency(_ mesh: Mesh, payload: [UInt8]) async throws {
    let frameBytes = try requestFrameBytes(payload: payload)
    let rounds = 4, perRound = 5_000
    // Warm-up: connections, caches, lazily created routes.
    _ = await rawPingPong(frameBytes: frameBytes, count: 2_000)
    _ = await requestLatencies(mesh.spokeBus, count: 2_000, payload: payload)
    _ = await requestLatencies(mesh.hubBus, count: 2_000, payload: payload)
    var raw: [Double] = [], bridge: [Double] = [], local: [Double] = []
    for _ in 0..<rounds {
        raw += await rawPingPong(frameBytes: frameBytes, count: perRound)
        bridge += await requestLatencies(mesh.spokeBus, count: perRound, payload: payload)
        local += await requestLatencies(mesh.hubBus, count: perRound, payload: payload)
    }
    let ratio = percentile(bridge, 0.5) / percentile(raw, 0.5)
    print("bridge request/reply (caller on spoke, handler on hub, \(payload.count) B payload, \(frameBytes) B frame, \(bridge.count) sequential): p50 \(micros(percentile(bridge, 0.5))) µs p99 \(micros(percentile(bridge, 0.99))) µs | raw unix-socket ping-pong (socketpair, \(frameBytes) B each way, blocking threads): p50 \(micros(percentile(raw, 0.5))) µs p99 \(micros(percentile(raw, 0.99))) µs | p50 ratio \(format(ratio, decimals: 2))x (target <= 2.0x: \(verdict(ratio <= 2)))")
    print("context: in-process bus request/reply (same bus, inline handler, same run): p50 \(micros(percentile(local, 0.5))) µs p99 \(micros(percentile(local, 0.99))) µs | bridge p50 is \(format(percentile(bridge, 0.5) / percentile(local, 0.5), decimals: 1))x that")
}

@concurrent func runThroughput(_ mesh: Mesh, payload: [UInt8]) async {
    let total = 200_000, inFlight = 64, rounds = 3
    _ = await pipelined(mesh.hubBus, total: 20_000, inFlight: inFlight, payload: payload)
    _ = await pipelined(mesh.spokeBus, total: 20_000, inFlight: inFlight, payload: payload)
    var local: [Double] = [], bridge: [Double] = []
    for _ in 0..<rounds {
        local.append(await pipelined(mesh.hubBus, total: total, inFlight: inFlight, payload: payload))
        bridge.append(await pipelined(mesh.spokeBus, total: total, inFlight: inFlight, payload: payload))
    }
    let bridgeRate = 1e9 / median(bridge), localRate = 1e9 / median(local)
    print("bridge pipelined request/reply (\(inFlight) in flight, \(total) requests, median of \(rounds)): \(format(bridgeRate / 1000)) k req/s (\(format(median(bridge))) ns/req; rounds \(bridge.map { format(1e6 / $0) }.joined(separator: ", ")) k req/s) | reference in-process bus, \(inFlight) in flight: \(format(localRate / 1000)) k req/s | ratio \(format(median(bridge) / median(local), decimals: 2))x time per request (target >= 100 k req/s: \(verdict(bridgeRate >= 100_000)))")
}

@concurrent func runCompression() async throws {
    let response = makeSearchResponse(offers: 50)
    let limits = WireLimits()
    let serialized = try response.wireEncoded()
    let payload = ByteBuffer(bytes: serialized)
    var encoded = ByteBuffer()
    let bodyBytes = FrameCodec.encode(payload: payload, limits: limits, into: &encoded)
    let frame = encoded
    let framesPerRound = 200, rounds = 9
    var encode: [Double] = [], decode: [Double] = [], serialize: [Double] = [], parse: [Double] = []
    for round in 0...rounds {
        let encodeNanos = await timeOnce(operations: framesPerRound) {
            for _ in 0..<framesPerRound {
                var out = ByteBuffer()
                FrameCodec.encode(payload: payload, limits: limits, into: &out)
                blackHole(out)
            }
        }
        let decodeNanos = await timeOnce(operations: framesPerRound) {
            for _ in 0..<framesPerRound {
                var input = frame
                blackHole(try? FrameCodec.decode(from: &input, limits: limits))
            }
        }
        let serializeNanos = await timeOnce(operations: framesPerRound) {
            for _ in 0..<framesPerRound { blackHole(try? response.wireEncoded()) }
        }
        let parseNanos = await timeOnce(operations: framesPerRound) {
            for _ in 0..<framesPerRound { blackHole(try? SearchFlightsResponse(wireEncoded: serialized)) }
        }
        guard round > 0 else { continue }  // round 0 is the warm-up
        encode.append(encodeNanos); decode.append(decodeNanos); serialize.append(serializeNanos); parse.append(parseNanos)
    }
    var check = frame
    guard let inflated = try FrameCodec.decode(from: &check, limits: limits), inflated == payload else { fatalError("frame does not round-trip") }
    print("search response frame (\(response.offers.count) offers, default WireLimits): raw \(serialized.count) B, compressed \(bodyBytes) B (frame \(frame.readableBytes) B), ratio \(format(Double(serialized.count) / Double(bodyBytes), decimals: 2)):1 | zlib encode median \(micros(median(encode))) µs/frame, inflate (decode) median \(micros(median(decode))) µs/frame | reference protobuf serialize \(micros(median(serialize))) µs, parse \(micros(median(parse))) µs (same message, same run)")
}

// `wire-benchmarks [latency|throughput|compression]` runs one group; no argument runs all.
// `wire-benchmarks process [FARELENS]` runs the cross-process group against a
// release `farelens` (default .build/release/farelens of the main package).
let group = CommandLine.arguments.dropFirst().first ?? "all"
if ProcessInfo.processInfo.environment["BENCH_NIO_EXECUTOR"] == "1" {
    print("NIO's event loops are this process's global concurrency executor: \(NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor())")
}
if group == "raw-echo", CommandLine.arguments.count == 4, let bytes = Int(CommandLine.arguments[3]) {
    runRawEchoServer(path: CommandLine.arguments[2], frameBytes: bytes)
}
if group == "nio-echo", CommandLine.arguments.count == 4, let bytes = Int(CommandLine.arguments[3]) {
    runNIOEchoServer(path: CommandLine.arguments[2], frameBytes: bytes)
}
if group == "envelope-echo", CommandLine.arguments.count == 4 {
    runEnvelopeEchoServer(path: CommandLine.arguments[2], answerHex: CommandLine.arguments[3])
}
if group == "raw-envelope-echo", CommandLine.arguments.count == 4 {
    runRawEnvelopeEchoServer(path: CommandLine.arguments[2], answerHex: CommandLine.arguments[3])
}
if group == "process" {
    let binary = CommandLine.arguments.dropFirst(2).first ?? ".build/release/farelens"
    print("wire-benchmarks process: the hub is \(binary) in its own process; this process is a spoke. \(ProcessInfo.processInfo.activeProcessorCount) cores; \(idlePolicy()).")
    do {
        try await runCrossProcess(binary: binary)
        exit(0)
    } catch {
        print("cross-process benchmark failed: \(error)")
        exit(1)
    }
}
let socketPath = "/tmp/farelens-wire-bench-\(getpid()).sock"
print("wire-benchmarks: hub bus and spoke bus live in ONE process, joined over a real Unix socket (\(socketPath)); this measures encode, framing, syscalls, decode and routing, not the scheduling of two processes. \(ProcessInfo.processInfo.activeProcessorCount) cores.")
do {
    let payload = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 37) }
    if group == "all" || group == "latency" || group == "throughput" {
        let mesh = try await startMesh(socketPath: socketPath)
        if group == "all" || group == "latency" { try await runLatency(mesh, payload: payload) }
        if group == "all" || group == "throughput" { await runThroughput(mesh, payload: payload) }
        for task in mesh.tasks { task.cancel() }
        unlink(socketPath)
    }
    if group == "all" || group == "compression" { try await runCompression() }
} catch {
    print("wire benchmark failed: \(error)")
    unlink(socketPath)
    exit(1)
}
