import BenchmarkHarness
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

// The cross-process figures (issue #12): the real `farelens` executable
// (release build, all six services) is the hub in its own process; this
// process is a spoke calling the search service's airport lookup over the
// socket. The reference is a raw Unix-socket ping-pong between this process
// and a second process (this binary in `raw-echo` mode), same frame size;
// beside it, the floor of the bridge's design (NIOEchoFloor.swift), and the
// wire format's floor, with event loops (EnvelopeEchoFloor.swift) and
// without (RawEnvelopeFloor.swift): the least any bridge speaking
// docs/wire-protocol.md does per request, measured in the same run.
// Also: start to ready of `farelens serve`, and the node's RSS at idle and
// after each million requests.

/// A running `farelens serve` and what it printed when ready.
struct NodeProcess {
    let process: Process
    let startToReady: Duration
    let socketPath: String

    /// The node's resident set (VmRSS), in MiB.
    var residentMiB: Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        let kib = Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
        return kib / 1024
    }

    /// CPU time the node has used (user + system), from /proc.
    var cpuTime: Duration { processCPUTime(process.processIdentifier) }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

/// Starts `farelens serve` on `dataDirectory` and waits for its ready line
/// (at most 60 s); the time is from launch to that line.
func startNode(binary: String, dataDirectory: String, socketPath: String) throws -> NodeProcess {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["serve", "--data-dir", dataDirectory, "--listen", socketPath, "--log-level", "warning"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let clock = ContinuousClock()
    let launched = clock.now
    try process.run()
    var seen = ""
    let handle = output.fileHandleForReading
    while !seen.contains("farelens ready:") {
        let chunk = handle.availableData  // blocks until output or EOF
        guard !chunk.isEmpty else { throw BenchmarkFailure("farelens exited before it was ready: \(seen)") }
        seen += String(decoding: chunk, as: UTF8.self)
        guard clock.now - launched < .seconds(60) else { throw BenchmarkFailure("farelens not ready within 60 s") }
    }
    let ready = clock.now - launched
    // Keep draining its output so the node never blocks on a full pipe.
    Thread.detachNewThread { while !handle.availableData.isEmpty {} }
    return NodeProcess(process: process, startToReady: ready, socketPath: socketPath)
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `raw-echo PATH BYTES`: accepts one connection on PATH and echoes
/// BYTES-byte messages with blocking read/write until the peer closes.
func runRawEchoServer(path: String, frameBytes: Int) -> Never {
    let connection = acceptOneConnection(path: path, mode: "raw echo")
    var buffer = [UInt8](repeating: 0, count: frameBytes)
    while readFully(connection, &buffer), writeFully(connection, buffer) {}
    unlink(path)
    exit(0)
}

/// Listens on PATH with a plain socket, says "listening", and returns the
/// first connection accepted (blocking).
func acceptOneConnection(path: String, mode: String) -> Int32 {
    unlink(path)
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = unixAddress(path)
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
    guard bound == 0, listen(listener, 1) == 0 else { fatalError("\(mode) cannot listen on \(path): errno \(errno)") }  // safe: a child benchmark process; its parent reports the failed connect
    FileHandle.standardOutput.write(Data("listening\n".utf8))
    return accept(listener, nil, nil)
}

func unixAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
    }
    return address
}

/// CPU time process `pid` has used (user + system), from /proc, in clock ticks (10 ms here).
func processCPUTime(_ pid: Int32) -> Duration {
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
    guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return .zero }
    let ticks = Int(sysconf(Int32(_SC_CLK_TCK)))
    return .milliseconds((user + system) * 1000 / max(1, ticks))
}

/// CPU time (user + system) used while some rounds ran, summed over the
/// rounds: by the other process of a pair, and by this one.
struct CPUSpent {
    var other = Duration.zero
    var this = Duration.zero

    /// Runs `body`, adding what the other process (read through `other`)
    /// and this one spent meanwhile.
    mutating func measuring<T>(other: () -> Duration, _ body: () async throws -> T) async rethrows -> T {
        let (otherBefore, thisBefore) = (other(), processCPUTime(getpid()))
        let result = try await body()
        self.other += other() - otherBefore
        self.this += processCPUTime(getpid()) - thisBefore
        return result
    }

    /// Each side's CPU per operation over `operations`, in µs.
    func microsPer(_ operations: Int) -> (other: String, this: String) {
        (micros(nanoseconds(other) / Double(operations)), micros(nanoseconds(this) / Double(operations)))
    }
}

/// Starts this binary in echo `mode` (`raw-echo`, `nio-echo`) on `path` and
/// returns once the child says it is listening.
func startEchoChild(mode: String, path: String, frameBytes: Int) throws -> Process {
    try startEchoChild(arguments: [mode, path, String(frameBytes)])
}

/// Starts this binary with `arguments` (an echo mode and its operands) and
/// returns once the child says it is listening.
func startEchoChild(arguments: [String]) throws -> Process {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = arguments
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    _ = output.fileHandleForReading.availableData  // "listening"
    return child
}

/// A raw ping-pong with a `raw-echo` child process: one connection, reused
/// across rounds (like the bridge's).
final class CrossProcessRawPingPong: @unchecked Sendable {  // safe: the fd is used by one round at a time, on its own thread
    let child: Process
    let fd: Int32
    let frameBytes: Int

    init(frameBytes: Int) throws {
        let path = "/tmp/farelens-raw-echo-\(getpid()).sock"
        child = try startEchoChild(mode: "raw-echo", path: path, frameBytes: frameBytes)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = unixAddress(path)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        self.fd = fd
        guard connected == 0 else { throw BenchmarkFailure("cannot connect to the raw echo process: errno \(errno)") }
        self.frameBytes = frameBytes
    }

    /// `count` timed round trips, on a plain thread (never the concurrency pool).
    func round(count: Int) async -> [Double] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                let samples = timedRoundTrips(fd, frameBytes: frameBytes, count: count)
                continuation.resume(returning: samples)
            }
        }
    }

    /// CPU time the echo process has used (user + system).
    var cpuTime: Duration { processCPUTime(child.processIdentifier) }

    func stop() {
        close(fd)
        child.waitUntilExit()
    }
}

func lookupLHR() -> AirportLookupRequest {
    var request = AirportLookupRequest()
    request.code = "LHR"
    return request
}

/// `count` calls of `call`, one after another, from a task that prefers
/// `executor` (nil: the concurrency pool, as a caller with no preference
/// runs); one sample (ns) each.
func sequentialLatencies(count: Int, on executor: (any TaskExecutor)?, _ call: @escaping @Sendable () async throws -> Void) async throws -> [Double] {
    try await withTaskExecutorPreference(executor) { () async throws -> [Double] in
        var samples: [Double] = []
        samples.reserveCapacity(count)
        let clock = ContinuousClock()
        for _ in 0..<count {
            let start = clock.now
            try await call()
            samples.append(nanoseconds(clock.now - start))
        }
        return samples
    }
}

/// Sequential airport lookups through `bus` from a task that prefers
/// `executor` (nil: the pool); one sample (ns) each.
func lookupLatencies(_ bus: MessageBus, count: Int, on executor: (any TaskExecutor)?) async throws -> [Double] {
    let request = lookupLHR()
    return try await sequentialLatencies(count: count, on: executor) { blackHole(try await bus.request(request)) }
}

/// `total` lookups from `inFlight` concurrent callers; returns ns per request.
@concurrent func pipelinedLookups(_ bus: MessageBus, total: Int, inFlight: Int) async throws -> Double {
    let request = lookupLHR()
    return try await pipelinedCalls(total: total, inFlight: inFlight) { blackHole(try await bus.request(request)) }
}

/// `total` calls of `call` from `inFlight` concurrent tasks, each making its
/// share one after another; returns ns per call, or the first failure.
@concurrent func pipelinedCalls(total: Int, inFlight: Int, _ call: @escaping @Sendable () async throws -> Void) async throws -> Double {
    let perCaller = total / inFlight
    var failure: (any Error)?
    let nanos = await timeOnce(operations: perCaller * inFlight) {
        failure = await withTaskGroup(of: (any Error)?.self) { group in
            for _ in 0..<inFlight {
                group.addTask {
                    do {
                        for _ in 0..<perCaller { try await call() }
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            for await error in group where error != nil { return error }
            return nil
        }
    }
    if let failure { throw failure }
    return nanos
}

@concurrent func runCrossProcess(binary: String) async throws {
    let base = NSTemporaryDirectory() + "farelens-bench-node-\(getpid())"
    try? FileManager.default.removeItem(atPath: base)
    let socketPath = "/tmp/farelens-bench-node-\(getpid()).sock"
    defer {
        try? FileManager.default.removeItem(atPath: base)
        unlink(socketPath)
    }
    // Start to ready: the first start creates six databases; restarts open them.
    var starts: [Duration] = []
    for _ in 0..<5 {
        let node = try startNode(binary: binary, dataDirectory: base, socketPath: socketPath)
        starts.append(node.startToReady)
        node.stop()
    }
    let restarts = starts.dropFirst().map { nanoseconds($0) / 1e6 }.sorted()
    print("farelens serve, all six services, release build: start to ready (launch to the ready line) first start on an empty data directory \(format(nanoseconds(starts[0]) / 1e6)) ms; restarts \(restarts.map { format($0) }.joined(separator: ", ")) ms, median \(format(median(restarts))) ms (target <= 500 ms: \(verdict(median(restarts) <= 500 && nanoseconds(starts[0]) / 1e6 <= 500)))")

    let node = try startNode(binary: binary, dataDirectory: base, socketPath: socketPath)
    defer { node.stop() }
    var busConfiguration = BusConfiguration()
    busConfiguration.nodeName = "bench-caller"
    busConfiguration.defaultDeadline = .seconds(30)
    let bus = MessageBus(configuration: busConfiguration)
    var logger = Logger(label: "wire-benchmarks")
    logger.logLevel = .error
    let spoke = BridgeSpoke(bus: bus, configuration: BridgeConfiguration(socketPath: socketPath), identity: identity("bench-caller"), logger: logger)
    bus.attach(spoke)
    let spokeTask = Task { try await spoke.run() }
    defer { spokeTask.cancel() }
    let end = ContinuousClock.now + .seconds(10)
    while !spoke.hosts(AirportLookupRequest.address) {
        guard ContinuousClock.now < end else { throw BenchmarkFailure("did not join the node within 10 s") }
        try await Task.sleep(for: .milliseconds(5))  // safe: polling the join, bounded by the 10 s check above
    }

    // BENCH_PIPELINED_ONLY=1: only three pipelined rounds, for comparing two builds quickly.
    if ProcessInfo.processInfo.environment["BENCH_PIPELINED_ONLY"] == "1" {
        _ = try await lookupLatencies(bus, count: 2_000, on: nil)
        for _ in 0..<3 {
            var spent = CPUSpent()
            let nanos = try await spent.measuring(other: { node.cpuTime }) { try await pipelinedLookups(bus, total: 1_000_000, inFlight: 64) }
            let perRequest = spent.microsPer(1_000_000)
            print("pipelined \(format(1e6 / nanos)) k req/s node \(perRequest.other) µs spoke \(perRequest.this) µs")
        }
        return
    }
    let frameBytes = try requestFrameBytes(address: AirportLookupRequest.address, typeName: AirportLookupRequest.wireTypeName, payload: try lookupLHR().wireEncoded())
    // BENCH_SEQUENTIAL_ONLY=1: only eight sequential rounds of the bridge, each
    // followed by one of the floor, the wire format's floor, the raw
    // ping-pong and the format's floor without event loops, for comparing two
    // builds quickly; =bridge:
    // the bridge's rounds alone (for profiling the spoke). BENCH_ECHO_SPIN_US=N
    // makes the floor's echo spin N µs per frame: what N µs of work on the
    // critical path costs in latency on this machine (docs/performance.md, twelfth pass).
    if let only = ProcessInfo.processInfo.environment["BENCH_SEQUENTIAL_ONLY"], only == "1" || only == "bridge" {
        // The floor's echo process is started only when its rounds run.
        // BENCH_CALLER=loop: the callers prefer their connection's event loop
        // (BridgeSpoke.executor, the floor's channel's loop); otherwise the pool.
        let onLoop = ProcessInfo.processInfo.environment["BENCH_CALLER"] == "loop"
        let floor = only == "1" ? try await NIOEchoFloor(frameBytes: frameBytes) : nil
        let answer = try await bus.request(lookupLHR())
        let formatFloor = only == "1" ? try await EnvelopeEchoFloor(answer: answer) : nil
        let raw = only == "1" ? try CrossProcessRawPingPong(frameBytes: frameBytes) : nil
        let rawFormat = only == "1" ? try RawEnvelopeFloor(answer: answer) : nil
        let spokeExecutor = onLoop ? spoke.executor : nil
        let floorExecutor = onLoop ? floor.map { EventLoopTaskExecutor(eventLoop: $0.channel.eventLoop) } : nil
        let formatFloorExecutor = onLoop ? formatFloor.map { EventLoopTaskExecutor(eventLoop: $0.channel.eventLoop) } : nil
        _ = try await lookupLatencies(bus, count: 2_000, on: spokeExecutor)
        _ = try await floor?.latencies(count: 2_000, on: floorExecutor)
        _ = try await formatFloor?.latencies(count: 2_000, on: formatFloorExecutor)
        _ = await raw?.round(count: 2_000)
        _ = await rawFormat?.round(count: 2_000)
        for _ in 0..<8 {
            var bridgeCPU = CPUSpent(), floorCPU = CPUSpent(), formatCPU = CPUSpent()
            let bridge = try await bridgeCPU.measuring(other: { node.cpuTime }) { try await lookupLatencies(bus, count: 5_000, on: spokeExecutor) }
            let (nodeCPU, spokeCPU) = bridgeCPU.microsPer(bridge.count)
            let line = "sequential p50 (callers on the \(onLoop ? "loop" : "pool")): bridge \(micros(percentile(bridge, 0.5))) µs (node \(nodeCPU), spoke \(spokeCPU) µs CPU)"
            guard let floor, let formatFloor, let raw, let rawFormat else { print(line); continue }
            let floorSamples = try await floorCPU.measuring(other: { floor.cpuTime }) { try await floor.latencies(count: 5_000, on: floorExecutor) }
            let (echoCPU, callerCPU) = floorCPU.microsPer(floorSamples.count)
            let formatSamples = try await formatCPU.measuring(other: { formatFloor.cpuTime }) { try await formatFloor.latencies(count: 5_000, on: formatFloorExecutor) }
            let (answerCPU, formatCallerCPU) = formatCPU.microsPer(formatSamples.count)
            let rawSamples = await raw.round(count: 5_000), rawFormatSamples = await rawFormat.round(count: 5_000)
            print("\(line) | floor \(micros(percentile(floorSamples, 0.5))) µs (echo \(echoCPU), caller \(callerCPU) µs CPU) | the format's floor \(micros(percentile(formatSamples, 0.5))) µs (answer \(answerCPU), caller \(formatCallerCPU) µs CPU) | raw \(micros(percentile(rawSamples, 0.5))) µs | the format's raw floor \(micros(percentile(rawFormatSamples, 0.5))) µs")
        }
        raw?.stop()
        rawFormat?.stop()
        await floor?.stop()
        await formatFloor?.stop()
        return
    }
    let raw = try CrossProcessRawPingPong(frameBytes: frameBytes)
    defer { raw.stop() }
    let floor = try await NIOEchoFloor(frameBytes: frameBytes)
    // Each caller runs in two ways: a task on the concurrency pool (no
    // preference), which wakes the loop to write and is woken back on the
    // pool, and a task that prefers its connection's event loop
    // (BridgeSpoke.executor; the floor's channel's loop), which does
    // neither (docs/decisions/0019-callers-on-the-spokes-event-loop.md).
    let floorLoop = EventLoopTaskExecutor(eventLoop: floor.channel.eventLoop)
    let answer = try await bus.request(lookupLHR())
    let formatFloor = try await EnvelopeEchoFloor(answer: answer)
    let rawFormat = try RawEnvelopeFloor(answer: answer)
    defer { rawFormat.stop() }
    let formatFloorLoop = EventLoopTaskExecutor(eventLoop: formatFloor.channel.eventLoop)
    _ = try await lookupLatencies(bus, count: 2_000, on: nil)
    _ = try await lookupLatencies(bus, count: 2_000, on: spoke.executor)
    _ = await raw.round(count: 2_000)
    _ = try await floor.latencies(count: 2_000, on: nil)
    _ = try await floor.latencies(count: 2_000, on: floorLoop)
    _ = try await formatFloor.latencies(count: 2_000, on: nil)
    _ = try await formatFloor.latencies(count: 2_000, on: formatFloorLoop)
    _ = await rawFormat.round(count: 2_000)
    try await Task.sleep(for: .seconds(1))  // safe: lets the node settle before reading its idle RSS
    let idle = node.residentMiB
    var rawSamples: [Double] = [], bridge: [Double] = [], bridgeOnLoop: [Double] = [], floorSamples: [Double] = [], floorOnLoop: [Double] = []
    var formatSamples: [Double] = [], formatOnLoop: [Double] = [], rawFormatRounds: [[Double]] = []
    var echoCPU = Duration.zero, floorCPU = CPUSpent(), bridgeCPU = CPUSpent(), floorLoopCPU = CPUSpent(), bridgeLoopCPU = CPUSpent()
    var formatCPU = CPUSpent(), formatLoopCPU = CPUSpent()
    for _ in 0..<4 {
        let echoBefore = raw.cpuTime
        rawSamples += await raw.round(count: 5_000)
        echoCPU += raw.cpuTime - echoBefore
        floorSamples += try await floorCPU.measuring(other: { floor.cpuTime }) { try await floor.latencies(count: 5_000, on: nil) }
        floorOnLoop += try await floorLoopCPU.measuring(other: { floor.cpuTime }) { try await floor.latencies(count: 5_000, on: floorLoop) }
        rawFormatRounds.append(await rawFormat.round(count: 5_000))
        formatSamples += try await formatCPU.measuring(other: { formatFloor.cpuTime }) { try await formatFloor.latencies(count: 5_000, on: nil) }
        formatOnLoop += try await formatLoopCPU.measuring(other: { formatFloor.cpuTime }) { try await formatFloor.latencies(count: 5_000, on: formatFloorLoop) }
        bridge += try await bridgeCPU.measuring(other: { node.cpuTime }) { try await lookupLatencies(bus, count: 5_000, on: nil) }
        bridgeOnLoop += try await bridgeLoopCPU.measuring(other: { node.cpuTime }) { try await lookupLatencies(bus, count: 5_000, on: spoke.executor) }
    }
    let (nodePerRequest, spokePerRequest) = bridgeCPU.microsPer(bridge.count)
    let (nodeLoopPerRequest, spokeLoopPerRequest) = bridgeLoopCPU.microsPer(bridgeOnLoop.count)
    let (floorEchoPerTrip, floorCallerPerTrip) = floorCPU.microsPer(floorSamples.count)
    let (floorLoopEchoPerTrip, floorLoopCallerPerTrip) = floorLoopCPU.microsPer(floorOnLoop.count)
    let (formatAnswerPerTrip, formatCallerPerTrip) = formatCPU.microsPer(formatSamples.count)
    let (formatLoopAnswerPerTrip, formatLoopCallerPerTrip) = formatLoopCPU.microsPer(formatOnLoop.count)
    await formatFloor.stop()
    let rawP50 = percentile(rawSamples, 0.5)
    let ratio = percentile(bridge, 0.5) / rawP50, loopRatio = percentile(bridgeOnLoop, 0.5) / rawP50
    print("cross-process bridge request/reply (this process a spoke, the real farelens node the hub; airport lookup LHR, \(frameBytes) B request frame, \(bridge.count) sequential each way): caller on the spoke's event loop (BridgeSpoke.executor) p50 \(micros(percentile(bridgeOnLoop, 0.5))) µs p99 \(micros(percentile(bridgeOnLoop, 0.99))) µs; caller on the concurrency pool p50 \(micros(percentile(bridge, 0.5))) µs p99 \(micros(percentile(bridge, 0.99))) µs | raw unix-socket ping-pong with a second process (\(frameBytes) B each way, blocking threads): p50 \(micros(rawP50)) µs p99 \(micros(percentile(rawSamples, 0.99))) µs | p50 ratio \(format(loopRatio, decimals: 2))x on the loop, \(format(ratio, decimals: 2))x on the pool (target <= 2.0x: \(verdict(loopRatio <= 2)) on the loop, \(verdict(ratio <= 2)) on the pool)")
    print("context: the node's CPU time (user + system, /proc) during the sequential rounds: \(nodeLoopPerRequest) µs per request with the caller on the loop, \(nodePerRequest) µs on the pool | the raw echo process's during its rounds: \(micros(nanoseconds(echoCPU) / Double(rawSamples.count))) µs per round trip")
    print("floor of the design (same frame size; a NIO event loop echoing in another process, called through a NIO channel and a promise per request; no envelope, protobuf, routing or service): caller on the channel's loop p50 \(micros(percentile(floorOnLoop, 0.5))) µs p99 \(micros(percentile(floorOnLoop, 0.99))) µs, \(format(percentile(floorOnLoop, 0.5) / rawP50, decimals: 2))x the raw ping-pong; caller on the pool p50 \(micros(percentile(floorSamples, 0.5))) µs p99 \(micros(percentile(floorSamples, 0.99))) µs, \(format(percentile(floorSamples, 0.5) / rawP50, decimals: 2))x | the bridge's p50 is \(format(percentile(bridgeOnLoop, 0.5) / percentile(floorOnLoop, 0.5), decimals: 2))x the floor's on the loop, \(format(percentile(bridge, 0.5) / percentile(floorSamples, 0.5), decimals: 2))x on the pool | CPU per round trip on the loop: echo \(floorLoopEchoPerTrip) µs, caller \(floorLoopCallerPerTrip) µs; the bridge's node \(nodeLoopPerRequest) µs, spoke \(spokeLoopPerRequest) µs | on the pool: echo \(floorEchoPerTrip) µs, caller \(floorCallerPerTrip) µs; the bridge's node \(nodePerRequest) µs, spoke \(spokePerRequest) µs")
    print("the wire format's floor (the floor of the design plus what docs/wire-protocol.md asks of each side and nothing more: the caller serializes the lookup and its envelope into a frame and parses the reply's frame, envelope and response, matched by correlation id; the answering process parses the frame, envelope and lookup, finds the airport in a dictionary and serializes the response, envelope and frame; no bus, routing, task per request, deadlines or metrics): caller on the channel's loop p50 \(micros(percentile(formatOnLoop, 0.5))) µs p99 \(micros(percentile(formatOnLoop, 0.99))) µs; caller on the pool p50 \(micros(percentile(formatSamples, 0.5))) µs p99 \(micros(percentile(formatSamples, 0.99))) µs | the bridge's p50 is \(format(percentile(bridgeOnLoop, 0.5) / percentile(formatOnLoop, 0.5), decimals: 2))x this on the loop, \(format(percentile(bridge, 0.5) / percentile(formatSamples, 0.5), decimals: 2))x on the pool | CPU per round trip on the loop: answer \(formatLoopAnswerPerTrip) µs, caller \(formatLoopCallerPerTrip) µs; on the pool: answer \(formatAnswerPerTrip) µs, caller \(formatCallerPerTrip) µs")
    let rawFormatSamples = rawFormatRounds.flatMap { $0 }
    print("the wire format's floor without event loops (the raw ping-pong's two blocking threads, each doing the format's work as above): p50 \(micros(percentile(rawFormatSamples, 0.5))) µs p99 \(micros(percentile(rawFormatSamples, 0.99))) µs (rounds \(rawFormatRounds.map { micros(percentile($0, 0.5)) }.joined(separator: ", ")) µs) | \(format(percentile(rawFormatSamples, 0.5) / rawP50, decimals: 2))x the raw ping-pong")

    var rates: [Double] = []
    var resident: [Double] = []
    // BENCH_MILLIONS=N: N rounds of a million (at least 2), to see where the node's RSS settles.
    let millions = max(2, Int(ProcessInfo.processInfo.environment["BENCH_MILLIONS"] ?? "") ?? 2)
    var pipelinedCPU = CPUSpent()
    for _ in 0..<millions {
        let nanos = try await pipelinedCPU.measuring(other: { node.cpuTime }) { try await pipelinedLookups(bus, total: 1_000_000, inFlight: 64) }
        rates.append(1e9 / nanos)
        try await Task.sleep(for: .seconds(1))  // safe: lets the node settle before reading its idle RSS
        resident.append(node.residentMiB)
    }
    let (nodePipelined, spokePipelined) = pipelinedCPU.microsPer(millions * 1_000_000)
    print("cross-process pipelined lookups (64 in flight, 1,000,000 per round, callers on the concurrency pool): \(rates.map { format($0 / 1000) }.joined(separator: ", ")) k req/s, median \(format(median(rates) / 1000)) k (target >= 100 k req/s: \(verdict(median(rates) >= 100_000))) | CPU per request (user + system, /proc): node \(nodePipelined) µs, spoke \(spokePipelined) µs")
    var loopRates: [Double] = []
    var loopPipelinedCPU = CPUSpent()
    for _ in 0..<2 {
        let nanos = try await loopPipelinedCPU.measuring(other: { node.cpuTime }) {
            try await withTaskExecutorPreference(spoke.executor) { () async throws -> Double in try await pipelinedLookups(bus, total: 1_000_000, inFlight: 64) }
        }
        loopRates.append(1e9 / nanos)
    }
    let (nodeLoopPipelined, spokeLoopPipelined) = loopPipelinedCPU.microsPer(2_000_000)
    print("the same, callers on the spoke's event loop (BridgeSpoke.executor): \(loopRates.map { format($0 / 1000) }.joined(separator: ", ")) k req/s, median \(format(median(loopRates) / 1000)) k (target >= 100 k req/s: \(verdict(median(loopRates) >= 100_000))) | CPU per request: node \(nodeLoopPipelined) µs, spoke \(spokeLoopPipelined) µs")
    var floorRates: [Double] = []
    var floorPipelinedCPU = CPUSpent()
    for _ in 0..<2 {
        floorRates.append(1e9 / (try await floorPipelinedCPU.measuring(other: { floor.cpuTime }) { try await floor.pipelined(total: 500_000, inFlight: 64) }))
    }
    let (echoPipelined, callerPipelined) = floorPipelinedCPU.microsPer(1_000_000)
    print("floor of the design, 64 in flight (500,000 per round, the same NIO echo): \(floorRates.map { format($0 / 1000) }.joined(separator: ", ")) k round trips/s | the bridge's median rate is \(format(median(loopRates) / median(floorRates) * 100, decimals: 0))% of the floor's with its callers on the loop, \(format(median(rates) / median(floorRates) * 100, decimals: 0))% on the pool (the floor's callers are on the pool) | CPU per round trip: echo loop \(echoPipelined) µs, caller \(callerPipelined) µs")
    await floor.stop()
    let responseBytes = try await bus.request(lookupLHR()).wireEncoded().count
    reportNATS(requestBytes: try lookupLHR().wireEncoded().count, replyBytes: responseBytes, bridgeP50: (onLoop: percentile(bridgeOnLoop, 0.5), onPool: percentile(bridge, 0.5)), formatFloorP50: (onLoop: percentile(formatOnLoop, 0.5), onPool: percentile(formatSamples, 0.5), raw: percentile(rawFormatSamples, 0.5)), bridgeRate: (onLoop: median(loopRates), onPool: median(rates)))
    let after = resident.enumerated().map { "after \($0.offset + 1) M \(format($0.element)) MiB" }.joined(separator: " | ")
    print("farelens node RSS: idle after start \(format(idle)) MiB | \(after) (growth after the first million: \(format(resident[resident.count - 1] - resident[0])) MiB)")
}

/// How this machine's idle CPUs wait, which sets what a wake-up costs: the
/// cpuidle driver and, under a VM's `haltpoll` driver, how long an idle vCPU
/// polls before it halts (0: it halts at once, and every wake-up of a thread
/// on it goes through the hypervisor). Sequential round trips depend on it
/// more than on anything in the bridge (docs/performance.md, twelfth pass).
func idlePolicy() -> String {
    func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let driver = read("/sys/devices/system/cpu/cpuidle/current_driver") ?? "unknown"
    guard let poll = read("/sys/module/haltpoll/parameters/guest_halt_poll_ns") else { return "cpuidle driver \(driver)" }
    return "cpuidle driver \(driver), guest halt polling \(poll) ns"
}
