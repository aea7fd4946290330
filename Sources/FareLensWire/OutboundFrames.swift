import FareLensMessages
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The frames one connection sends: each envelope is serialized and framed
/// by the thread that sends it, appended to one buffer under a lock, and the
/// buffer goes to the channel in one write, flushed once, by a single job on
/// the event loop queued by the first frame since the last such write.
///
/// On the event loop (a reply answered while the frames of a read are
/// decoded) the frames are handed over as soon as ``earlyWriteBytes`` have
/// gathered, not only when the read is done: the peer works through the
/// first replies while the rest are answered, instead of the two ends
/// taking turns (docs/decisions/0017-replies-written-during-a-read.md).
///
/// Frames go out in the order their `send` calls took the lock, so one
/// thread's frames keep their order, and a frame sent while a caller holds
/// some other lock cannot be overtaken by a frame sent after it releases it
/// (the hub relies on that for redelivery).
///
/// Why not NIO's `MessageToByteHandler` and a `write` per frame: each frame
/// then crossed the pipeline as a boxed `NIOAny` with a buffer of its own
/// and an entry in the channel's pending writes, on the event loop, the one
/// thread every request of the connection passes through
/// (docs/decisions/0016-bridge-frames-without-pipeline-handlers.md).
final class OutboundFrames: Sendable {
    private struct Pending {
        /// Frames not yet handed to the channel.
        var buffer = ByteBuffer()
        /// Whether a job that hands them over is queued on the event loop.
        var writeQueued = false

        /// Whether the caller must queue the write job (none is queued yet).
        mutating func queueWrite() -> Bool {
            guard !writeQueued else { return false }
            writeQueued = true
            return true
        }
    }

    // Taken by every sending thread and the event loop at once under load: a
    // pthread mutex (decision 0015) rather than `Synchronization.Mutex`,
    // whose unlock was the cost under contention.
    private let pending = NIOLockedValueBox(Pending())
    private let channel: any Channel
    private let limits: WireLimits
    private let metrics: ConnectionMetrics?
    private let logger: Logger

    init(channel: any Channel, limits: WireLimits, metrics: ConnectionMetrics?, logger: Logger) {
        self.channel = channel
        self.limits = limits
        self.metrics = metrics
        self.logger = logger
    }

    /// Serializes and frames `envelope` on the calling thread and queues the
    /// frame (compressed when it is long enough and compression helps).
    func send(_ envelope: WireEnvelope) {
        WireTimeline.mark(.frameQueued)
        let bytes: [UInt8]
        do {
            bytes = try envelope.serializedBytes()
        } catch {
            // A proto3 envelope has no required fields: serializing it cannot fail.
            logger.error("envelope not sent: it does not serialize", metadata: ["kind": "\(envelope.kind)", "reason": "\(error)"])
            return
        }
        let payloadBytes: Int
        let queueWrite: Bool
        let gathered: Int
        if bytes.count < limits.compressionThreshold {
            (payloadBytes, queueWrite, gathered) = pending.withLockedValue { pending in
                (FrameCodec.encode(bytes: bytes, limits: limits, into: &pending.buffer), pending.queueWrite(), pending.buffer.readableBytes)
            }
        } else {
            // Compressed outside the lock: deflating a long payload takes a while.
            var frame = ByteBuffer()
            payloadBytes = FrameCodec.encode(bytes: bytes, limits: limits, into: &frame)
            (queueWrite, gathered) = pending.withLockedValue { pending in
                pending.buffer.writeImmutableBuffer(frame)
                return (pending.queueWrite(), pending.buffer.readableBytes)
            }
        }
        metrics?.sent(wireBytes: payloadBytes + FrameCodec.headerBytes, payloadBytes: bytes.count)
        if gathered >= Self.earlyWriteBytes, channel.eventLoop.inEventLoop {
            // A job queued by an earlier frame finds nothing left (or what came since) to write.
            write()
        } else if queueWrite {
            channel.eventLoop.execute { [self] in write() }
        }
    }

    /// How many bytes of frames sent on the event loop are handed to the
    /// channel at once, without waiting for the job queued by the first of
    /// them. 2 KiB (about 16 replies to a lookup) measured best among 0.5,
    /// 1, 1.5, 2, 3 and 4 KiB at 64 requests in flight (docs/performance.md,
    /// "eleventh pass"); frames sent from other threads always wait for the job.
    static let earlyWriteBytes = 2048

    /// Hands the frames queued so far to the channel and flushes (on the
    /// event loop).
    private func write() {
        let frames = pending.withLockedValue { pending in
            pending.writeQueued = false
            defer { pending.buffer = ByteBuffer() }
            return pending.buffer
        }
        guard frames.readableBytes > 0 else { return }
        WireTimeline.mark(.framesWritten)
        channel.writeAndFlush(frames, promise: nil)
        if !channel.isWritable { closeIfSlowConsumer() }
    }

    /// Closes the connection as `slow-consumer` when more than
    /// ``WireLimits/maxUnwrittenBytes`` wait for a peer that is not reading
    /// (on the event loop; asked only once the channel is past its high-water
    /// mark, so a peer that reads costs nothing here).
    private func closeIfSlowConsumer() {
        // Closed already (this job ran after the close): nothing more to tell.
        guard channel.isActive, let unwritten = try? channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes),
              unwritten > limits.maxUnwrittenBytes else { return }
        // The connection's last handler logs it, fails what waits on the connection and closes it.
        channel.pipeline.syncOperations.fireErrorCaught(WireProtocolError.slowConsumer(unwritten: unwritten, cap: limits.maxUnwrittenBytes))
    }

    /// Runs `action` on the event loop once every frame sent before this
    /// call has been written to the socket (or has failed to be).
    func afterWritten(_ action: @escaping @Sendable () -> Void) {
        // The frames still queued are written first (their own write job may
        // not have run yet, or not even be queued: its sender may be between
        // the lock and `execute`); the channel completes writes in order.
        channel.eventLoop.execute { [self] in
            write()
            channel.writeAndFlush(ByteBuffer()).whenComplete { _ in action() }
        }
    }
}
