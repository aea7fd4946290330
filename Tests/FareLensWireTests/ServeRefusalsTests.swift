import FareLensTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `farelens serve` given what it cannot use: each refusal names the option,
/// the value and what is allowed (issue #63: "Missing value",
/// "does not exist" for a file, a bare `bind(descriptor:ptr:bytes:)`).
@Suite("farelens serve refuses what it cannot use, naming it")
struct ServeRefusalsTests {
    @Test("a negative --demo-speed is refused as a demo speed (it said 'Missing value')")
    func negativeDemoSpeed() async throws {
        let result = try await ChildProcess.run(Binaries.farelens, ["serve", "--demo", "--demo-speed", "-3"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--demo-speed must be simulated hours per real second, from 0.0003 to 1000, not -3.0"), "\(result.stderr)")
    }

    @Test("a --data-dir that names a file says it is a file")
    func dataDirectoryIsAFile() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/a-file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let result = try await ChildProcess.run(Binaries.farelens, ["serve", "--data-dir", file, "--listen", directory + "/s.sock", "--http-listen", "127.0.0.1:0"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("data directory '\(file)' is a file, not a directory"), "\(result.stderr)")
    }

    @Test("a --metrics-listen port that is taken stops the node naming the option and the address")
    func metricsPortInUse() async throws {
        let held = try HeldPort()
        defer { held.close() }
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let result = try await ChildProcess.run(
            Binaries.farelens,
            ["serve", "--data-dir", directory + "/data", "--listen", directory + "/s.sock", "--http-listen", "127.0.0.1:0",
             "--metrics-listen", "127.0.0.1:\(held.port)", "--log-level", "error"],
            limit: .seconds(60))
        #expect(result.status != 0)
        #expect(result.stderr.contains("the metrics endpoint cannot listen on 127.0.0.1:\(held.port) (metrics.listen, --metrics-listen): the address is in use"), "\(result.stderr)")
    }
}

/// A loopback TCP port held open by the test (listening, so it is in use).
private struct HeldPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 1) == 0 else { throw WaitTimedOut(what: "a loopback port to hold (errno \(errno))") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
