public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process run to its end: its exit status and what it printed.
///
/// Every test that runs a command to completion goes through ``run(_:_:environment:directory:mergingOutput:limit:)``,
/// which reads the output and waits for the exit on a thread of its own.
/// Reading a pipe to its end or `waitUntilExit()` inside a test holds one
/// of the concurrency pool's two threads (on this 2-core machine) for as
/// long as the command runs: `ops/check-packaging.sh --commands`, run that
/// way, held one for tens of seconds, and a probe in the same test process
/// measured stalls of 8 and 12.5 s before its 20 ms sleeps resumed — every
/// other suite's bounded wait in the process stood still meanwhile.
public struct FinishedProcess: Sendable {
    /// The exit status (a child killed at its limit: 137-ish, never 0).
    public let status: Int32
    /// Standard output; with `mergingOutput`, both streams in the order written.
    public let stdout: String
    /// Standard error; empty with `mergingOutput`.
    public let stderr: String

    /// Runs `executable arguments…` to its end, killed with SIGKILL when it
    /// is still running after `limit` (a bound against hangs).
    ///
    /// - Parameters:
    ///   - environment: added to this process's environment (a key given wins).
    ///   - directory: the working directory; this process's when nil.
    ///   - mergingOutput: standard error into the same pipe as standard output.
    /// - Throws: what `Process.run()` throws when the executable cannot start.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        mergingOutput: Bool = false, limit: Duration
    ) async throws -> FinishedProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given } }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = mergingOutput ? out : Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        let milliseconds = Int(limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
        // The limit's watch has a thread of its own too: libdispatch's global
        // queue (asyncAfter) runs late when other tests hold its threads.
        let exited = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // safe: a thread of its own; returns at the child's exit or its limit
            if exited.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut, process.isRunning { killTree(pid) }
        }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                // Both pipes are read as the child writes (a child filling a
                // pipe nobody reads would never exit).
                let ends = DispatchGroup()
                ends.enter()
                let stdout = PipeOutput.collect(out) { ends.leave() }
                var stderr: Locked<String>?
                if !mergingOutput {
                    ends.enter()
                    stderr = PipeOutput.collect(err) { ends.leave() }
                }
                // The pipes end when the child and everything it started
                // exit (at the latest at the limit, which kills them all).
                ends.wait()  // safe: a thread of its own, never the pool; bounded by the limit
                let status = process.waitForExit()
                exited.signal()
                continuation.resume(returning: FinishedProcess(status: status, stdout: stdout.get(), stderr: stderr?.get() ?? ""))
            }
        }
    }

    /// SIGKILL to `pid` and every process it started: a script's children
    /// would otherwise keep its pipes open (and, on Linux, Foundation's
    /// `waitUntilExit` waiting) after the script itself is killed.
    ///
    /// Each is stopped (SIGSTOP) before the next look for its children, and
    /// all are killed once no running one is left to start another: read
    /// and killed in one pass, a shell that forked its `sleep 600 &` just
    /// after the tree was read left that child alive, holding the pipes
    /// (`FinishedProcessTests.limitKillsTheTree` gave up waiting, several
    /// loaded runs on 2026-11-29 and 11-30).
    private static func killTree(_ pid: Int32) {
        kill(pid, SIGSTOP)
        var stopped: Set<Int32> = [pid]
        while true {
            let parents = processParents()
            func descendants(of pid: Int32) -> [Int32] { (parents[pid] ?? []).flatMap { descendants(of: $0) + [$0] } }
            let found = Set(descendants(of: pid)).subtracting(stopped)
            guard !found.isEmpty else { break }
            for process in found { kill(process, SIGSTOP) }
            stopped.formUnion(found)
        }
        for process in stopped { kill(process, SIGKILL) }
    }

    /// Every process's children, by parent id, from /proc.
    private static func processParents() -> [Int32: [Int32]] {
        var parents: [Int32: [Int32]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid …": the name may hold spaces, so after its ")".
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[parent, default: []].append(child) }
        }
        return parents
    }
}
