import FareLensTesting
import Foundation
import GRDB
import Testing

/// A service database killed with SIGKILL while its log is being copied on
/// the checkpointer's connection (docs/decisions/0023): every committed row
/// is there after, and the file is sound.
@Suite("Crashes during checkpoints off the writer")
struct CheckpointCrashTests {
    /// The last `committed N checkpointed K` line of `output`.
    static func lastReport(_ output: String) -> (row: Int, checkpoints: Int)? {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("committed ") }) else { return nil }
        let words = line.split(separator: " ")
        guard words.count == 4, let row = Int(words[1]), let checkpoints = Int(words[3]) else { return nil }
        return (row, checkpoints)
    }

    @Test("killed three times while writing and checkpointing: every reported row is kept, in order, and the file passes its integrity check")
    func killedDuringCheckpoints() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var reported = 0
        for _ in 1...3 {
            // The writer kills itself with SIGKILL right after this row's
            // commit, while its checkpointer copies the log: at a row, not
            // when this loaded process would have got round to it.
            let killAt = reported + Int.random(in: 300...600)
            let writer = try ChildProcess.start(Binaries.testNode, ["checkpoint-writes", "--data-dir", directory, "--kill-at-row", "\(killAt)"])
            defer { writer.kill() }
            try await waitUntil("the writer killed itself after row \(killAt)", limit: .seconds(60)) { !writer.process.isRunning }
            #expect(writer.process.terminationReason == .uncaughtSignal && writer.process.terminationStatus == SIGKILL, "killed by SIGKILL, not exited")
            // Its last line may still be on its way through the pipe.
            try await waitUntil("the writer's line for row \(killAt) was read") { Self.lastReport(writer.output.get())?.row == killAt }
            let report = try #require(Self.lastReport(writer.output.get()))
            #expect(report.checkpoints > 0, "the log was being checkpointed off the writer")
            reported = report.row
            let database = try DatabaseQueue(path: directory + "/test-writer.sqlite")
            let (count, last, integrity) = try await database.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row") ?? 0, try Int.fetchOne(db, sql: "SELECT MAX(sequence) FROM row") ?? 0,
                    try String.fetchOne(db, sql: "PRAGMA integrity_check")
                )
            }
            try database.close()
            #expect(count == reported, "every row reported committed is there, and none after the kill")
            #expect(last == count, "no row missing before the last")
            #expect(integrity == "ok")
        }
    }
}
