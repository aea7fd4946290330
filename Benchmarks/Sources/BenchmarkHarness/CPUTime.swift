import Foundation

/// CPU time spent so far, in nanoseconds, by this process, by its children
/// that have exited and been waited for, and by another running process.
/// A benchmark reads it before and after a run to say what each message
/// cost each side, not only how long the run took.
public enum CPUTime {
    /// This process, every thread (user and system).
    public static var ownNanoseconds: Double { usage(RUSAGE_SELF) }

    /// Children of this process that have exited and been waited for
    /// (a reference program run with ``programOutput(_:_:)``).
    public static var childrenNanoseconds: Double { usage(RUSAGE_CHILDREN) }

    /// A running process's threads, from `/proc/<pid>/task/*/schedstat`
    /// (nanoseconds on a CPU; threads that ended are not counted); nil if
    /// it cannot be read.
    public static func ofProcess(_ pid: Int32) -> Double? {
        let tasks = "/proc/\(pid)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return nil }
        return threads.reduce(0.0) { total, thread in
            guard let line = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                let onCPU = line.split(separator: " ").first.flatMap({ Double($0) })
            else { return total }
            return total + onCPU
        }
    }

    private static func usage(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        func nanos(_ time: timeval) -> Double { Double(time.tv_sec) * 1e9 + Double(time.tv_usec) * 1e3 }
        return nanos(usage.ru_utime) + nanos(usage.ru_stime)
    }
}
