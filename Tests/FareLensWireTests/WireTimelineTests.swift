import Foundation
@testable import FareLensWire
import Testing

@Suite("Wire timeline (diagnostic)")
struct WireTimelineTests {
    func temporaryPath() -> String {
        NSTemporaryDirectory() + "wire-timeline-test-\(UUID().uuidString).txt"
    }

    func lines(_ path: String) throws -> [[Int64]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ").map { Int64($0)! } }
    }

    @Test("marks are written as POINT NANOSECONDS CPU, in order, with a monotonic clock")
    func marksInOrder() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = WireTimeline.Recorder(path: path)
        for point in [WireTimeline.Point.callerStarts, .frameQueued, .framesWritten, .frameRead, .responseDecoded, .callerResumed] {
            recorder.mark(point)
        }
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is written before a batch is full or a flush")
        recorder.flush()
        let marks = try lines(path)
        #expect(marks.map { $0[0] } == [0, 1, 2, 3, 4, 7])
        #expect(marks.allSatisfy { $0.count == 3 && $0[2] >= 0 }, "each line names the CPU")
        #expect(zip(marks, marks.dropFirst()).allSatisfy { $0[1] <= $1[1] }, "CLOCK_MONOTONIC never goes back")
    }

    @Test("a full batch is appended at once; a later batch goes after it")
    func fullBatchesAppend() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = WireTimeline.Recorder(path: path, batch: 4)
        for _ in 0..<4 { recorder.mark(.frameRead) }
        #expect(try lines(path).count == 4)
        for _ in 0..<3 { recorder.mark(.framesWritten) }
        #expect(try lines(path).count == 4, "a partial batch waits")
        recorder.mark(.framesWritten)
        #expect(try lines(path).map { $0[0] } == [3, 3, 3, 3, 2, 2, 2, 2])
    }

    @Test("many threads marking at once lose no mark")
    func concurrentMarks() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = WireTimeline.Recorder(path: path, batch: 100)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask { for _ in 0..<250 { recorder.mark(.frameQueued) } }
            }
        }
        recorder.flush()
        #expect(try lines(path).count == 16 * 250)
    }

    @Test("the timeline is off unless FARELENS_WIRE_TIMELINE is set")
    func offByDefault() {
        #expect((ProcessInfo.processInfo.environment["FARELENS_WIRE_TIMELINE"] == nil) == (WireTimeline.recorder == nil))
    }
}
