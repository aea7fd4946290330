#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to the process's standard output and error without trapping.
///
/// `FileHandle.write(_:)` traps (`try!` inside Foundation) when the reader
/// has gone: `farelensctl events tail | head -5` crashed with "Broken pipe"
/// and a backtrace once `head` had its five lines. These writes report the
/// failure instead, and ``ignoreBrokenPipeSignal()`` turns the signal that
/// would kill the process into that failure.
public enum StandardStreams {
    /// Why a write did not complete.
    public enum WriteFailure: Error, Equatable, Sendable {
        /// The reading end is closed (`EPIPE`): nobody will read more.
        case readerGone
        /// Any other `write(2)` error, with its `errno`.
        case failed(errno: Int32)
    }

    /// Makes a write to a closed pipe fail with `EPIPE` instead of killing
    /// the process with `SIGPIPE`, so that the caller decides what a closed
    /// pipe means (for a command printing lines, the end of its work).
    public static func ignoreBrokenPipeSignal() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Writes all of `text` to standard output, unbuffered.
    public static func writeOutput(_ text: String) throws(WriteFailure) {
        try write(text, to: STDOUT_FILENO)
    }

    /// Writes all of `text` to standard error, unbuffered.
    public static func writeError(_ text: String) throws(WriteFailure) {
        try write(text, to: STDERR_FILENO)
    }

    /// Writes `text` to `descriptor`, retrying short writes and `EINTR`.
    public static func write(_ text: String, to descriptor: Int32) throws(WriteFailure) {
        var bytes = Array(text.utf8)
        var failure: WriteFailure?
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                let written = Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if written >= 0 {
                    offset += written
                } else if errno == EINTR {
                    continue
                } else {
                    failure = errno == EPIPE ? .readerGone : .failed(errno: errno)
                    return
                }
            }
        }
        if let failure { throw failure }
    }
}
