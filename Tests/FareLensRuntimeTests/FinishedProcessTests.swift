import FareLensTesting
import Foundation
import Testing

/// `FinishedProcess.run` waits for its child off the concurrency pool: the
/// guarantee that keeps a long command in one test from stopping every
/// other test in the process.
@Suite("A command run to its end holds no thread of the pool")
struct FinishedProcessTests {
    @Test("more children than the pool has threads, each waiting for a file this test writes after starting them: all finish, none at its limit")
    func childrenDoNotHoldThePool() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flt-finished-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let signal = directory.appendingPathComponent("go").path
        // One more child than the pool has threads: were each waited for on
        // a pool thread, nothing would be left to write the file, and every
        // child would end killed at its 20 s limit (status 137, not 0).
        let children = ProcessInfo.processInfo.activeProcessorCount + 1
        let script = "while [ ! -f '\(signal)' ]; do sleep 0.01; done; echo done; echo note >&2"
        try await withThrowingTaskGroup(of: FinishedProcess.self) { group in
            for _ in 0..<children { group.addTask { try await FinishedProcess.run("/bin/sh", ["-c", script], limit: .seconds(20)) } }
            try await Task.sleep(for: .milliseconds(200))  // safe: gives the children time to start; they wait for the file either way
            #expect(FileManager.default.createFile(atPath: signal, contents: Data()))
            var finished = 0
            for try await result in group {
                #expect(result.status == 0 && result.stdout == "done\n" && result.stderr == "note\n", "\(result)")
                finished += 1
            }
            #expect(finished == children)
        }
    }

    @Test("a child still running at its limit is killed with every process it started: its status is never 0, what it wrote before is kept, and its own child is gone too")
    func limitKillsTheTree() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("flt-grandchild-\(UInt32.random(in: 0 ... .max))").path
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        // Left alive, the grandchild would hold the run for its 600 s (Foundation's
        // wait for the child's exit ends only when it does): the wait below gives up.
        let script = "sleep 600 >/dev/null 2>&1 & echo $! > '\(pidFile)'; echo started; wait"
        let outcome = Locked<FinishedProcess?>(nil)
        Task { outcome.set(try await FinishedProcess.run("/bin/sh", ["-c", script], limit: .milliseconds(500))) }
        try await waitUntil("the run returned", limit: .seconds(20)) { outcome.get() != nil }
        let result = try #require(outcome.get())
        #expect(result.status != 0)
        #expect(result.stdout == "started\n")
        let grandchild = try #require(Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie waiting to be reaped: never still sleeping. Killed is not yet exited (a loaded
        // single-phase run read it still stopped): a killed grandchild exits within this bound, an escaped one sleeps 600 s.
        func state() -> Substring? { (try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8))?.split(separator: ")").last?.split(separator: " ").first }
        _ = try? await waitUntil("the killed grandchild exited", limit: .seconds(10)) { state() == nil || state() == "Z" }
        let last = state()
        #expect(last == nil || last == "Z", "the grandchild \(grandchild) is still running (state \(last.map(String.init) ?? "?"))")
    }

    @Test("a child that keeps starting processes until its limit is killed with every one of them: none started while the tree is killed escapes")
    func limitKillsAForkingTree() async throws {
        // Each sleep is marked by its own duration, so that one which escaped can be found after the run.
        let marker = "600.\(Int.random(in: 100_000 ... 999_999))"
        let script = "while :; do sleep \(marker) >/dev/null 2>&1 & sleep 0.005; done"
        // Not awaited inside the test's time limit: a run that never returns (a survivor holding its pipes, as
        // before the fix) cannot be cancelled, so the limit is a wait for its outcome.
        let outcome = Locked<FinishedProcess?>(nil)
        Task { outcome.set(try await FinishedProcess.run("/bin/sh", ["-c", script], limit: .milliseconds(500))) }
        defer { for survivor in Self.running(withArgument: marker) { kill(survivor, SIGKILL) } }
        try await waitUntil("the run returned", limit: .seconds(20)) { outcome.get() != nil }
        let result = try #require(outcome.get())
        #expect(result.status != 0)
        // Killed is not yet exited: on a loaded machine a killed sleep may still wait to be scheduled when the run
        // returns (a single-phase run found one). One that escaped the kill sleeps for 600 s and outlives this bound.
        let exited = (try? await waitUntil("the killed processes exited", limit: .seconds(10)) { Self.running(withArgument: marker).isEmpty }) != nil
        let survivors = Self.running(withArgument: marker)
        #expect(exited && survivors.isEmpty, "\(survivors.count) of the child's processes outlived the kill")
    }

    /// The processes, neither exited nor zombies, one of whose arguments holds `marker` (the sleeps and the
    /// shell that starts them).
    static func running(withArgument marker: String) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                commandLine.split(separator: 0).contains(where: { String(decoding: $0, as: UTF8.self).contains(marker) }),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: close)...].split(separator: " ").first != "Z"
            else { return nil }
            return pid
        }
    }
}
