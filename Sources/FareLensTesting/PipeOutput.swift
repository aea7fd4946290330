public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process's output, collected as it is written.
///
/// A thread of its own reads the pipe with `read(2)` until end of file, so
/// the collection neither holds a thread of the concurrency pool nor goes
/// through `FileHandle.readabilityHandler`: on Linux that handler runs on a
/// libdispatch source, and with many pipes at once it crashes the process
/// (swift-corelibs-foundation issue 3276, "libdispatch SEGFAULT when using
/// Foundation's FileHandle readabilityHandler on lots of pipes"). The test
/// command's heavy phase, tens of child processes, crashed with signal 11
/// in a fresh-clone CI run on 2026-11-29.
public enum PipeOutput {
    /// Starts reading `pipe` (the reading end) into a shared string; the
    /// reader stops at end of file, when every writer has closed its end,
    /// and then calls `ended`.
    public static func collect(_ pipe: Pipe, ended: @escaping @Sendable () -> Void = {}) -> Locked<String> {
        let output = Locked("")
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    let text = String(decoding: buffer[0..<count], as: UTF8.self)
                    output.update { $0 += text }
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            // Keeps the pipe (and so the descriptor) open until the reading ends.
            withExtendedLifetime(pipe) {}
            ended()
        }
        thread.name = "pipe-output"
        thread.start()
        return output
    }
}
