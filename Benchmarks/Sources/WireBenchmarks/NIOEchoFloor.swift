import BenchmarkHarness
import FareLensWire
import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

// The floor of the bridge's design across two processes (issue #12): the
// same frame size as the bridge's request, but nothing of the bridge. The
// other process (this binary in `nio-echo` mode) is one NIO event loop that
// echoes each frame from `channelRead` and flushes in `channelReadComplete`,
// as the hub answers on its loop; this process calls it through a NIO client
// channel and a promise per request, as a spoke does: from a task on the
// concurrency pool (pool → loop to write, loop → pool to resume), or from a
// task that prefers the channel's loop, as a caller preferring
// `BridgeSpoke.executor` does (no hop on this side). No envelope,
// no protobuf, no routing, no service. What the bridge takes beyond this is
// its own work; what this takes beyond the raw ping-pong (two plain threads,
// blocking read/write) is the platform's: event loops, wake-ups of another
// thread, Swift concurrency. Both sides mark the wire timeline's points
// (FARELENS_WIRE_TIMELINE; Sources/FareLensWire/WireTimeline.swift) where
// the bridge marks them, so Benchmarks/timeline/analyze.py lines up a floor
// round trip the way it lines up a bridge request.

/// Work added before each echo (`BENCH_ECHO_SPIN_US`, default none): a busy
/// wait, so the loop stays on its CPU as a handler doing that much work would.
let echoSpin = Duration.microseconds(Int(ProcessInfo.processInfo.environment["BENCH_ECHO_SPIN_US"] ?? "0") ?? 0)

/// Echoes every complete `frameBytes` frame it has read; flushes once per read burst.
private final class FrameEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let frameBytes: Int
    private var partial: ByteBuffer?

    init(frameBytes: Int) { self.frameBytes = frameBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var earlier = partial {
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        while let frame = bytes.readSlice(length: frameBytes) {
            WireTimeline.mark(.frameRead)
            if echoSpin > .zero { let end = ContinuousClock.now + echoSpin; while ContinuousClock.now < end {} }
            context.write(wrapOutboundOut(frame), promise: nil)
        }
        partial = bytes.readableBytes > 0 ? bytes : nil
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        WireTimeline.mark(.framesWritten)
        context.flush()
    }

    func channelInactive(context: ChannelHandlerContext) { exit(0) }
}

/// `nio-echo PATH BYTES`: one NIO event loop echoing BYTES-byte frames on PATH
/// until the first connection closes.
func runNIOEchoServer(path: String, frameBytes: Int) -> Never {
    serveOnOneLoop(path: path, mode: "nio echo") { FrameEchoHandler(frameBytes: frameBytes) }
}

/// Listens on PATH with one NIO event loop, gives each connection the
/// handler `makeHandler` makes, says "listening" and serves until the
/// process exits (the echo handlers exit when their connection closes).
func serveOnOneLoop(path: String, mode: String, makeHandler: @escaping @Sendable () -> any ChannelHandler) -> Never {
    unlink(path)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let server: any Channel
    do {
        server = try ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(makeHandler()) }
            }
            .bind(unixDomainSocketPath: path)
            .wait()
    } catch {
        fatalError("\(mode) cannot listen on \(path): \(error)")  // safe: a child benchmark process; its parent reports the failed connect
    }
    FileHandle.standardOutput.write(Data("listening\n".utf8))
    try? server.closeFuture.wait()  // never closes: the connection's end exits the process
    exit(0)
}

/// Completes the oldest waiting promise for each complete frame read back.
private final class FrameReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let frameBytes: Int
    private var unread = 0
    var waiting = CircularBuffer<EventLoopPromise<Void>>()

    init(frameBytes: Int) { self.frameBytes = frameBytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        unread += unwrapInboundIn(data).readableBytes
        while unread >= frameBytes, let promise = waiting.popFirst() {
            unread -= frameBytes
            WireTimeline.mark(.frameRead)
            WireTimeline.mark(.responseDecoded)
            promise.succeed()
        }
    }
}

/// A `nio-echo` child process and this process's client channel to it.
final class NIOEchoFloor: Sendable {
    let child: Process
    let channel: any Channel
    private let replies: NIOLoopBound<FrameReplyHandler>
    private let frame: ByteBuffer

    init(frameBytes: Int) async throws {
        let path = "/tmp/farelens-nio-echo-\(getpid()).sock"
        child = try startEchoChild(mode: "nio-echo", path: path, frameBytes: frameBytes)
        // The spoke's own group (BridgeSpoke's default), so the caller's side is the spoke's.
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let handler = try await eventLoop.submit { NIOLoopBound(FrameReplyHandler(frameBytes: frameBytes), eventLoop: eventLoop) }.get()
        channel = try await ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler.value) }
            }
            .connect(unixDomainSocketPath: path)
            .get()
        replies = handler
        frame = ByteBuffer(repeating: 0x5A, count: frameBytes)
    }

    /// One round trip from the calling task: the write hops to the loop, the
    /// reply completes a promise that resumes the caller.
    func roundTrip() async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        WireTimeline.mark(.callerStarts)
        WireTimeline.mark(.frameQueued)
        channel.eventLoop.execute { [self] in
            WireTimeline.mark(.framesWritten)
            replies.value.waiting.append(promise)
            channel.writeAndFlush(frame, promise: nil)
        }
        try await promise.futureResult.get()
        WireTimeline.mark(.callerResumed)
    }

    /// `count` sequential round trips from a task that prefers `executor`
    /// (nil: the pool); one sample (ns) each.
    func latencies(count: Int, on executor: (any TaskExecutor)?) async throws -> [Double] {
        try await sequentialLatencies(count: count, on: executor) { try await self.roundTrip() }
    }

    /// `total` round trips from `inFlight` concurrent tasks; ns per round trip.
    @concurrent func pipelined(total: Int, inFlight: Int) async throws -> Double {
        try await pipelinedCalls(total: total, inFlight: inFlight) { try await self.roundTrip() }
    }

    /// CPU time the echo process has used (user + system).
    var cpuTime: Duration { processCPUTime(child.processIdentifier) }

    func stop() async {
        try? await channel.close()
        child.waitUntilExit()
    }
}
