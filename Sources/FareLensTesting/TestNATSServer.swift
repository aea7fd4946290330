import FareLensNATS
import Foundation
import Synchronization

/// A real `nats-server` (with JetStream) on a free loopback port, for the
/// NATS shape of the mesh tests and the NATS transport's own tests. Tests
/// share one per test process (``shared()``), each in a namespace of its
/// own; a test that kills or restarts a server starts its own (``start()``).
public final class TestNATSServer: Sendable {
    /// `nats://127.0.0.1:PORT`.
    public let url: String
    /// The client port.
    public let port: Int
    /// Its JetStream store directory.
    public let storeDirectory: String
    private let process: Mutex<Process?>

    private init(port: Int, storeDirectory: String, process: Process) {
        self.port = port
        self.url = "nats://127.0.0.1:\(port)"
        self.storeDirectory = storeDirectory
        self.process = Mutex(process)
    }

    /// Started on first use, by whichever test asks first; the others await it.
    private static let sharedStart = Task<TestNATSServer, any Error> {
        let server = try await start()
        atexit { TestNATSServer.sharedServer.withLock { $0?.kill() } }
        sharedServer.withLock { $0 = server }
        return server
    }
    private static let sharedServer = Mutex<TestNATSServer?>(nil)

    /// The process's shared server, started on first use and stopped when
    /// the test process exits.
    public static func shared() async throws -> TestNATSServer {
        try await sharedStart.value
    }

    /// Starts a server with JetStream (its store in a fresh directory, or
    /// `storeDirectory` to restart on an earlier one's data, on `port` when
    /// given; without it when `jetStream` is false; `environment` added to
    /// the server's, for a configuration file's variables) and waits, at
    /// most 30 s and on a thread of its own (never the concurrency pool's),
    /// until it accepts connections.
    ///
    /// - Throws: ``TestNATSServerError`` when `nats-server` is not installed
    ///   or does not start listening.
    public static func start(
        port: Int? = nil, storeDirectory: String? = nil, extraArguments: [String] = [], environment: [String: String] = [:],
        jetStream: Bool = true
    ) async throws -> TestNATSServer {
        try await onOwnThread {
            try startBlocking(port: port, storeDirectory: storeDirectory, extraArguments: extraArguments, environment: environment, jetStream: jetStream)
        }
    }

    private static func startBlocking(
        port: Int?, storeDirectory: String?, extraArguments: [String], environment: [String: String], jetStream: Bool
    ) throws -> TestNATSServer {
        guard let executable = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestNATSServerError(message: "nats-server is not installed (apt-get install nats-server; ops/install-deps.sh does it)")
        }
        let port = try port ?? freeLoopbackPort()
        let store = storeDirectory ?? "\(testScratchRoot)/flt-nats-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-a", "127.0.0.1", "-p", "\(port)"] + (jetStream ? ["-js", "-sd", store] : []) + extraArguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = TestNATSServer(port: port, storeDirectory: store, process: process)
        let end = ContinuousClock.now + .seconds(30)
        while !canConnect(port: port) {
            guard process.isRunning, ContinuousClock.now < end else {
                server.kill()
                throw TestNATSServerError(message: "nats-server did not listen on 127.0.0.1:\(port) within 30 s")
            }
            Thread.sleep(forTimeInterval: 0.02)  // safe: bounded wait (30 s) for a real server process to listen
        }
        return server
    }

    /// The server's process id while it runs (a benchmark reads its CPU time); nil once stopped.
    public var processIdentifier: Int32? {
        process.withLock { $0?.processIdentifier }
    }

    /// Stops the server with SIGSTOP (alive, its sockets open, answering
    /// nothing) and returns once the kernel says it is stopped.
    public func pause() async throws {
        guard let pid = processIdentifier else { return }
        Glibc.kill(pid, SIGSTOP)
        try await waitUntil("nats-server \(pid) is stopped", limit: .seconds(10)) { Self.state(of: pid) == "T" }
    }

    /// Lets a paused server go on (SIGCONT).
    public func resume() {
        guard let pid = processIdentifier else { return }
        Glibc.kill(pid, SIGCONT)
    }

    /// A process's state letter from `/proc/<pid>/stat` ("T" when stopped).
    private static func state(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: end)...].split(separator: " ").first.map(String.init)
    }

    /// Stops the server with SIGKILL (a crash) and waits for it to exit.
    public func kill() {
        signal(SIGKILL)
    }

    /// Stops the server with SIGTERM and waits for it to exit.
    public func terminate() {
        signal(SIGTERM)
    }

    private func signal(_ number: Int32) {
        guard let process = process.withLock({ current -> Process? in
            defer { current = nil }
            return current
        }) else { return }
        if process.isRunning { Glibc.kill(process.processIdentifier, number) }
        process.waitForExit()
    }

    /// A loopback port free now (for a cluster's route ports, known before its servers start).
    public static func freeLoopbackPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestNATSServerError(message: "socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        guard bound == 0 else { throw TestNATSServerError(message: "bind() failed") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func canConnect(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

/// A test's `nats-server` could not be started.
public struct TestNATSServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
