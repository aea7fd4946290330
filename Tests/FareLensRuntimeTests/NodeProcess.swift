import FareLensTesting
import Foundation

/// The built executables next to the test bundle (`swift build --build-tests` builds them).
enum NodeBinaries {
    static let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    static var farelens: String { directory + "/farelens" }
    static var farelensctl: String { directory + "/farelensctl" }
}

/// A `farelens serve` child process with its stdout and stderr collected.
struct NodeProcess {
    let process: Process
    let output: Locked<String>

    static func start(_ arguments: [String]) throws -> NodeProcess {
        guard FileManager.default.isExecutableFile(atPath: NodeBinaries.farelens) else { throw WaitTimedOut(what: "farelens to be built (swift build --build-tests)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NodeBinaries.farelens)
        process.arguments = ["serve"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS": "0"]) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = PipeOutput.collect(pipe)
        return NodeProcess(process: process, output: output)
    }

    func waitForOutput(containing text: String) async throws {
        do {
            try await waitUntil("output contains '\(text)'", limit: .seconds(30)) { output.get().contains(text) }
        } catch {
            throw WaitTimedOut(what: "output contains '\(text)' (output: \(output.get()))")
        }
    }

    /// SIGTERM (graceful shutdown), then waits for the exit, at most 30 s.
    func terminate() async throws {
        process.terminate()
        try await waitUntil("the node exited", limit: .seconds(30)) { !process.isRunning }
    }

    /// SIGKILL, for `defer`.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }
}

/// Runs `farelensctl` to completion (killed after 30 s, a bound against hangs).
func farelensctl(_ arguments: [String]) async throws -> FinishedProcess {
    try await FinishedProcess.run(NodeBinaries.farelensctl, arguments, limit: .seconds(30))
}
