import BenchmarkHarness
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reference for request/reply: a raw `socketpair(AF_UNIX, SOCK_STREAM)`
/// ping-pong of `frameBytes`-byte messages. One thread echoes with blocking
/// read/write; the calling thread times each round trip. Both are plain
/// threads, never the concurrency pool. Returns one sample (ns) per round trip.
func rawPingPong(frameBytes: Int, count: Int) async -> [Double] {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: blockingPingPong(frameBytes: frameBytes, count: count)) }
    }
}

private func blockingPingPong(frameBytes: Int, count: Int) -> [Double] {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fatalError("socketpair failed: errno \(errno)") }
    let caller = fds[0], echo = fds[1]
    Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: frameBytes)
        while readFully(echo, &buffer), writeFully(echo, buffer) {}
        close(echo)
    }
    let samples = timedRoundTrips(caller, frameBytes: frameBytes, count: count)
    close(caller)
    return samples
}

func readFully(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
    let total = buffer.count
    var done = 0
    while done < total {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, total - done) }
        if count <= 0 { return false }
        done += count
    }
    return true
}

func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var done = 0
    while done < bytes.count {
        let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
        if count <= 0 { return false }
        done += count
    }
    return true
}

/// `count` blocking round trips of `frameBytes` bytes on `fd`; one sample (ns) each.
func timedRoundTrips(_ fd: Int32, frameBytes: Int, count: Int) -> [Double] {
    let frame = [UInt8](repeating: 0x5A, count: frameBytes)
    var reply = [UInt8](repeating: 0, count: frameBytes)
    var samples: [Double] = []
    samples.reserveCapacity(count)
    let clock = ContinuousClock()
    for _ in 0..<count {
        let start = clock.now
        guard writeFully(fd, frame), readFully(fd, &reply) else { fatalError("raw ping-pong broke: errno \(errno)") }  // safe: a benchmark cannot report a figure without its reference
        samples.append(nanoseconds(clock.now - start))
    }
    return samples
}
