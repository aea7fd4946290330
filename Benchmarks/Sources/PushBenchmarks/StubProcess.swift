import Crypto
import FareLensTesting
import Foundation

/// The APNs stub the benchmark pushes to, wherever it runs.
protocol PushStub: Sendable {
    /// "https://127.0.0.1:PORT".
    var baseURL: String { get }
    /// The stub's self-signed certificate, to trust.
    var certificatePEM: String { get }
    /// Stops the stub; returns the TLS connections it accepted.
    func stop() async throws -> Int
}

/// The stub in this process.
struct InProcessStub: PushStub {
    let stub: APNsStub
    let baseURL: String
    var certificatePEM: String { stub.certificatePEM }

    init(_ stub: APNsStub) async throws {
        self.stub = stub
        baseURL = try await stub.start()
    }

    func stop() async throws -> Int {
        let count = stub.connectionCount
        await stub.stop()
        return count
    }
}

/// The stub in a child process: this executable run with `--serve-stub`.
/// The child is given the provider's public key in its environment, prints
/// its base URL and its certificate (base64 PEM) on two lines, serves
/// until its standard input ends, then prints `connections N` and exits.
final class StubProcess: PushStub, @unchecked Sendable {  // safe: every stored property is set in init and never changed; Process and the pipes are used from one task at a time (init, then stop)
    let baseURL: String
    let certificatePEM: String
    private let process: Process
    private let input: Pipe
    private let output: Pipe

    /// Environment variable carrying the provider's public key (PEM) to the child.
    static let keyVariable = "PUSH_BENCH_PROVIDER_KEY"

    init(providerKey: P256.Signing.PublicKey) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--serve-stub"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.keyVariable] = providerKey.pemRepresentation
        process.environment = environment
        input = Pipe()
        output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var lines = Self.lines(of: output.fileHandleForReading, count: 2)
        guard lines.count == 2, lines[0].hasPrefix("https://"), let pem = Data(base64Encoded: lines[1]).flatMap({ String(data: $0, encoding: .utf8) }) else {
            process.terminate()
            throw StubProcessError(message: "the stub process did not start: \(lines)")
        }
        baseURL = lines.removeFirst()
        certificatePEM = pem
    }

    func stop() async throws -> Int {
        try input.fileHandleForWriting.close()
        let rest = Self.lines(of: output.fileHandleForReading, count: 1)
        process.waitUntilExit()
        guard let line = rest.first, line.hasPrefix("connections "), let count = Int(line.dropFirst("connections ".count)) else {
            throw StubProcessError(message: "the stub process ended without its count: \(rest)")
        }
        return count
    }

    /// Up to `count` lines from `handle`, read a byte at a time (nothing past them is consumed).
    private static func lines(of handle: FileHandle, count: Int) -> [String] {
        var lines: [String] = []
        var line: [UInt8] = []
        while lines.count < count {
            guard let byte = try? handle.read(upToCount: 1), let first = byte.first else { break }
            if first == UInt8(ascii: "\n") {
                lines.append(String(decoding: line, as: UTF8.self))
                line.removeAll()
            } else {
                line.append(first)
            }
        }
        return lines
    }

    /// The child's side: serves the stub until standard input ends.
    static func serve(keyID: String, teamID: String, topic: String) async throws {
        guard let pem = ProcessInfo.processInfo.environment[keyVariable] else { throw StubProcessError(message: "\(keyVariable) is not set") }
        let stub = try await APNsStub(providerKey: try P256.Signing.PublicKey(pemRepresentation: pem), keyID: keyID, teamID: teamID, topic: topic)
        let url = try await stub.start()
        FileHandle.standardOutput.write(Data("\(url)\n\(Data(stub.certificatePEM.utf8).base64EncodedString())\n".utf8))
        // Blocks this (main) thread only: the stub answers on its event loops.
        while (try? FileHandle.standardInput.read(upToCount: 4096))?.isEmpty == false {}
        let count = stub.connectionCount
        await stub.stop()
        FileHandle.standardOutput.write(Data("connections \(count)\n".utf8))
    }
}

struct StubProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { "push-bench: \(message)" }
}
