import FareLensTesting
import Foundation
@testable import FareLensWire
import Testing

/// The marks of a timeline file as [point, nanoseconds, cpu].
func timelineMarks(_ path: String) throws -> [[Int64]] {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ").map { Int64($0)! } }
}

@Suite("Wire timeline (diagnostic)")
struct WireTimelineTests {
    func temporaryPath() -> String {
        NSTemporaryDirectory() + "wire-timeline-test-\(UUID().uuidString).txt"
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
        let marks = try timelineMarks(path)
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
        #expect(try timelineMarks(path).count == 4)
        for _ in 0..<3 { recorder.mark(.framesWritten) }
        #expect(try timelineMarks(path).count == 4, "a partial batch waits")
        recorder.mark(.framesWritten)
        #expect(try timelineMarks(path).map { $0[0] } == [3, 3, 3, 3, 2, 2, 2, 2])
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
        #expect(try timelineMarks(path).count == 16 * 250)
    }

    @Test("the timeline is off unless FARELENS_WIRE_TIMELINE is set")
    func offByDefault() {
        #expect((ProcessInfo.processInfo.environment["FARELENS_WIRE_TIMELINE"] == nil) == (WireTimeline.recorder == nil))
    }
}

@Suite("Wire timeline across processes", .serialized)
struct WireTimelineProcessTests {
    /// Whether `marks` holds the points of `pattern` one after another, each later than the one before.
    func containsRun(_ marks: [[Int64]], _ pattern: [Int64]) -> Bool {
        guard marks.count >= pattern.count else { return false }
        return (0...(marks.count - pattern.count)).contains { start in
            let run = marks[start..<(start + pattern.count)]
            return run.map { $0[0] } == pattern && zip(run, run.dropFirst()).allSatisfy { $0[1] <= $1[1] }
        }
    }

    @Test("FARELENS_WIRE_TIMELINE: a lookup from farelensctl leaves the request's steps, in order, in the node's file and in the client's")
    func timelineOfOneLookup() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let timeline = directory + "/timeline"
        try FileManager.default.createDirectory(atPath: timeline, withIntermediateDirectories: true)
        let socket = directory + "/hub.sock"
        let environment = ["FARELENS_WIRE_TIMELINE": timeline]
        let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", "search", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"], environment: environment)
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")

        let lookup = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "airports", "LHR"], environment: environment)
        #expect(lookup.status == 0, "\(lookup.stderr)")
        // The node writes its marks when the client's connection closes.
        let nodeFile = "\(timeline)/wire-timeline-\(hub.pid).txt"
        // Waited for until it holds marks, not only until it exists: a fresh-clone CI run read it between its
        // creation and its write (empty).
        try await waitUntil("the node's timeline file, with its marks", limit: .seconds(10)) { (try? timelineMarks(nodeFile))?.isEmpty == false }
        let node = try timelineMarks(nodeFile)
        #expect(containsRun(node, [3, 1, 2]), "a frame read, the reply queued and written: \(node.map { $0[0] })")
        #expect(node.allSatisfy { $0.count == 3 && $0[2] >= 0 })

        let clientFiles = try FileManager.default.contentsOfDirectory(atPath: timeline).filter { $0 != "wire-timeline-\(hub.pid).txt" }
        #expect(clientFiles.count == 1, "farelensctl's own file: \(clientFiles)")
        if let clientFile = clientFiles.first {
            let client = try timelineMarks("\(timeline)/\(clientFile)")
            #expect(containsRun(client, [0, 1, 2, 3, 4, 7]), "encode, queue, write, read, decode, done: \(client.map { $0[0] })")
        }
    }

    @Test("without FARELENS_WIRE_TIMELINE nothing is written")
    func noTimelineByDefault() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", "search", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"], environment: ["FARELENS_WIRE_TIMELINE_UNUSED": "x"])
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")
        let lookup = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "airports", "LHR"])
        #expect(lookup.status == 0)
        let written = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("wire-timeline-") }
        #expect(written.isEmpty)
        // Nor in the working directory the node inherited.
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/wire-timeline-\(hub.pid).txt"))
    }
}
