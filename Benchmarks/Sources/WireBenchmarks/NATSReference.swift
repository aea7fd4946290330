import BenchmarkHarness
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The NATS reference of issue #12 ("4× faster than NATS"): request/reply
// through a local nats-server, requester and responder in two processes,
// with NATS's own C client (Benchmarks/nats-reference/nats_reference.c,
// Debian's libnats-dev). Run by `wire-benchmarks process` after the bridge's
// rounds, with the lookup's payload sizes. Skipped, with a line saying so,
// when nats-server or the reference binary is missing.

/// Where the NATS reference's programs are, or why they cannot be used.
struct NATSReferencePrograms {
    let server: String
    let client: String

    /// `nats-server` from `FARELENS_NATS_SERVER` or the PATH; the client from
    /// `FARELENS_NATS_REFERENCE` or `Benchmarks/.build/nats-reference`
    /// (beside this binary's build folder).
    static func find() -> Result<NATSReferencePrograms, BenchmarkFailure> {
        let environment = ProcessInfo.processInfo.environment
        let searchPath = (environment["PATH"] ?? "/usr/bin").split(separator: ":").map { "\($0)/nats-server" }
        let servers = [environment["FARELENS_NATS_SERVER"]].compactMap { $0 } + searchPath
        guard let server = servers.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return .failure(BenchmarkFailure("no nats-server (apt-get install nats-server, or set FARELENS_NATS_SERVER)"))
        }
        // .build/release/wire-benchmarks or .build/<triple>/release/wire-benchmarks.
        let binaryFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let clients = [environment["FARELENS_NATS_REFERENCE"]].compactMap { $0 } + [
            binaryFolder.deletingLastPathComponent().appendingPathComponent("nats-reference").path,
            binaryFolder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("nats-reference").path,
        ]
        guard let client = clients.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return .failure(BenchmarkFailure("no nats-reference binary (apt-get install libnats-dev, then Benchmarks/nats-reference/build.sh)"))
        }
        return .success(NATSReferencePrograms(server: server, client: client))
    }
}

/// A running nats-server on loopback and a responder process answering on one subject.
final class NATSReference {
    let programs: NATSReferencePrograms
    let url: String
    let subject = "bench.lookup"
    let requestBytes: Int
    private let server: Process
    private let responder: Process
    private let responderInput: Pipe

    /// Starts nats-server on a free loopback port (waiting at most 10 s for
    /// it to accept) and a responder answering with `replyBytes` bytes.
    init(programs: NATSReferencePrograms, requestBytes: Int, replyBytes: Int) throws {
        self.programs = programs
        self.requestBytes = requestBytes
        let port = try Self.freeLoopbackPort()
        url = "nats://127.0.0.1:\(port)"
        server = Process()
        server.executableURL = URL(fileURLWithPath: programs.server)
        server.arguments = ["-a", "127.0.0.1", "-p", String(port)]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let end = ContinuousClock.now + .seconds(10)
        while !Self.accepts(port: port) {
            guard ContinuousClock.now < end, server.isRunning else {
                server.terminate()
                throw BenchmarkFailure("nats-server did not accept on port \(port) within 10 s")
            }
            usleep(20_000)  // safe: polling the server's start, bounded by the 10 s check above
        }
        responder = Process()
        responder.executableURL = URL(fileURLWithPath: programs.client)
        responder.arguments = ["respond", url, subject, String(replyBytes)]
        responderInput = Pipe()
        responder.standardInput = responderInput
        let output = Pipe()
        responder.standardOutput = output
        try responder.run()
        // "listening", or end of file if it failed (it printed why on stderr).
        guard String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("listening") else {
            server.terminate()
            throw BenchmarkFailure("the NATS responder did not start")
        }
    }

    /// nats-server's own version line ("nats-server: v2.9.10") and the C client's.
    var versions: String {
        let server = (try? programOutput(programs.server, ["--version"])) ?? "nats-server ?"
        let client = (try? programOutput(programs.client, ["version"])) ?? "?"
        return "\(server), nats.c \(client)"
    }

    /// `count` sequential requests in a new requester process: (p50, p99) in ns.
    func latencies(count: Int) throws -> (p50: Double, p99: Double) {
        let fields = try programOutput(programs.client, ["latency", url, subject, String(requestBytes), String(count)]).split(separator: " ")
        guard fields.count == 2, let p50 = Double(fields[0]), let p99 = Double(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkFailure("the NATS requester printed no latencies")
        }
        return (p50, p99)
    }

    /// `total` requests with `inFlight` outstanding in a new requester process: ns per request.
    func pipelined(total: Int, inFlight: Int) throws -> Double {
        let printed = try programOutput(programs.client, ["pipelined", url, subject, String(requestBytes), String(total), String(inFlight)])
        guard let nanos = Double(printed.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw BenchmarkFailure("the NATS requester printed no rate")
        }
        return nanos
    }

    /// CPU time nats-server and the responder have used (user + system).
    var serverCPUTime: Duration { processCPUTime(server.processIdentifier) }
    var responderCPUTime: Duration { processCPUTime(responder.processIdentifier) }

    func stop() {
        try? responderInput.fileHandleForWriting.close()  // the responder answers until its input ends
        responder.waitUntilExit()
        server.terminate()
        server.waitUntilExit()
    }

    /// A port the kernel hands out for loopback, released for nats-server to take.
    private static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchmarkFailure("no free loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// The NATS lines of `wire-benchmarks process`: sequential request/reply
/// (four rounds of 5,000, each from a new requester process) and 64 in
/// flight (two rounds of 500,000), against the bridge's figures of the same
/// run. Prints why it was skipped instead when NATS is not installed.
func reportNATS(requestBytes: Int, replyBytes: Int, bridgeP50: (onLoop: Double, onPool: Double), formatFloorP50: (onLoop: Double, onPool: Double, raw: Double), bridgeRate: (onLoop: Double, onPool: Double)) {
    let programs: NATSReferencePrograms
    switch NATSReferencePrograms.find() {
    case .success(let found): programs = found
    case .failure(let missing):
        print("NATS reference skipped: \(missing)")
        return
    }
    do {
        let nats = try NATSReference(programs: programs, requestBytes: requestBytes, replyBytes: replyBytes)
        defer { nats.stop() }
        _ = try nats.latencies(count: 2_000)
        var rounds: [(p50: Double, p99: Double)] = []
        for _ in 0..<4 { rounds.append(try nats.latencies(count: 5_000)) }
        let p50 = median(rounds.map(\.p50))
        let speedup = p50 / bridgeP50.onLoop, poolSpeedup = p50 / bridgeP50.onPool
        print("NATS request/reply through a local nats-server (\(nats.versions); TCP loopback, requester and responder in two processes, publishes sent at once; payloads \(requestBytes) B and \(replyBytes) B as the lookup's; 4 rounds of 5,000 sequential): p50 \(micros(p50)) µs (rounds \(rounds.map { micros($0.p50) }.joined(separator: ", "))) p99 \(micros(median(rounds.map(\.p99)))) µs | the bridge's p50 with the caller on the spoke's loop \(micros(bridgeP50.onLoop)) µs is \(format(speedup, decimals: 2))x faster, on the pool \(micros(bridgeP50.onPool)) µs \(format(poolSpeedup, decimals: 2))x (target >= 4x: \(verdict(speedup >= 4)) on the loop, \(verdict(poolSpeedup >= 4)) on the pool) | the wire format's floor is \(format(p50 / formatFloorP50.onLoop, decimals: 2))x faster on the loop, \(format(p50 / formatFloorP50.onPool, decimals: 2))x on the pool, \(format(p50 / formatFloorP50.raw, decimals: 2))x without event loops")
        var rates: [Double] = []
        for _ in 0..<2 { rates.append(1e9 / (try nats.pipelined(total: 500_000, inFlight: 64))) }
        print("NATS, 64 in flight (500,000 per round, one requester process): \(rates.map { format($0 / 1000) }.joined(separator: ", ")) k req/s | the bridge's median rate with its callers on the spoke's loop \(format(bridgeRate.onLoop / 1000)) k req/s is \(format(bridgeRate.onLoop / median(rates), decimals: 2))x NATS's, on the pool \(format(bridgeRate.onPool / 1000)) k \(format(bridgeRate.onPool / median(rates), decimals: 2))x")
    } catch {
        print("NATS reference failed: \(error)")
    }
}
