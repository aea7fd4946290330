import FareLensTesting
import Foundation
import Testing


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
        let held = try HeldLoopbackPort(listening: true)
        defer { held.close() }
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let result = try await ChildProcess.run(
            Binaries.farelens,
            ["serve", "--data-dir", directory + "/data", "--listen", directory + "/s.sock", "--http-listen", "127.0.0.1:0",
             "--metrics-listen", "127.0.0.1:\(held.port)", "--log-level", "error"],
            limit: .seconds(60))
        #expect(result.status != 0)
        #expect(result.stderr.contains("the metrics endpoint cannot listen on 127.0.0.1:\(held.port) (metrics.listen, --metrics-listen): the address is in use"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/data"), "refused before the data directory was made")
    }
}
