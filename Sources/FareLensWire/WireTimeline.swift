import Foundation
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// A diagnostic for where a lone request's time goes across processes: a
/// timestamp (`CLOCK_MONOTONIC`, comparable between processes) and the CPU
/// at fixed points of the bridge's request path
/// (docs/performance.md, "Speed, thirteenth pass";
/// `Benchmarks/timeline/analyze.py` lines the two processes' marks up).
///
/// Off unless the environment variable `FARELENS_WIRE_TIMELINE` names a
/// directory; then each process appends `POINT NANOSECONDS CPU` lines to
/// `DIRECTORY/wire-timeline-PID.txt`, 4,096 marks at a time and whatever is
/// left when a bridge connection closes. Off, a mark costs a load and a branch.
public enum WireTimeline {
    /// The points of a request's path, in the order a request passes them.
    public enum Point: UInt8, Sendable {
        /// A typed request is about to be encoded for a connection (``PeerConnection`` `request`, on the caller's thread).
        case callerStarts = 0
        /// A frame was serialized and queued (``OutboundFrames`` `send`, on the sending thread).
        case frameQueued = 1
        /// Queued frames were handed to the channel (``OutboundFrames`` `write`, on the event loop).
        case framesWritten = 2
        /// A whole frame was read (``EnvelopeFrameDecoder``, on the event loop).
        case frameRead = 3
        /// A response was decoded and is handed to its waiting caller (``PeerConnection``, on the event loop).
        case responseDecoded = 4
        /// The caller has the typed response, decoded (``PeerConnection`` `request`, on the caller's thread).
        case callerResumed = 7
    }

    /// The recorder the environment asks for, or nil (off).
    static let recorder: Recorder? = ProcessInfo.processInfo.environment["FARELENS_WIRE_TIMELINE"].map {
        Recorder(path: "\($0)/wire-timeline-\(getpid()).txt")
    }

    /// Records `point` now, when the timeline is on.
    @inline(__always)
    public static func mark(_ point: Point) {
        recorder?.mark(point)
    }

    /// Writes the marks not written yet. Called when a bridge connection
    /// closes and when farelensctl's session ends, so a process that stops
    /// or a command that returns leaves every mark in its file.
    public static func flush() {
        recorder?.flush()
    }

    /// Marks kept in memory and appended to a file a batch at a time.
    final class Recorder: Sendable {
        let path: String
        let batch: Int
        private let marks = NIOLockedValueBox<[(point: UInt8, nanoseconds: UInt64, cpu: Int32)]>([])

        init(path: String, batch: Int = 4096) {
            self.path = path
            self.batch = batch
        }

        func mark(_ point: Point) {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nanoseconds = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
            let cpu = currentCPU()
            let full = marks.withLockedValue { marks -> [(point: UInt8, nanoseconds: UInt64, cpu: Int32)]? in
                marks.append((point.rawValue, nanoseconds, cpu))
                guard marks.count >= batch else { return nil }
                defer { marks.removeAll(keepingCapacity: true) }
                return marks
            }
            if let full { append(full) }
        }

        /// Writes the marks not written yet (tests; a process that is about to exit).
        func flush() {
            let pending = marks.withLockedValue { marks in
                defer { marks.removeAll(keepingCapacity: true) }
                return marks
            }
            if !pending.isEmpty { append(pending) }
        }

        private func append(_ marks: [(point: UInt8, nanoseconds: UInt64, cpu: Int32)]) {
            var text = ""
            text.reserveCapacity(marks.count * 24)
            for mark in marks { text += "\(mark.point) \(mark.nanoseconds) \(mark.cpu)\n" }
            // A diagnostic: a file that cannot be written loses these marks, nothing else.
            guard let file = fopen(path, "a") else { return }
            _ = text.withCString { fputs($0, file) }
            fclose(file)
        }
    }

    /// `sched_getcpu()`, which Glibc's module map leaves out (it needs `_GNU_SOURCE`).
    private static let schedGetCPU: (@convention(c) () -> Int32)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sched_getcpu")
        // safe: glibc's `int sched_getcpu(void)`, called through a C function pointer of exactly that type.
        .map { unsafeBitCast($0, to: (@convention(c) () -> Int32).self) }

    /// The CPU the calling thread runs on, or -1 where that cannot be asked.
    static func currentCPU() -> Int32 { schedGetCPU?() ?? -1 }
}
