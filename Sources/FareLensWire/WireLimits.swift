/// Size limits and the compression policy of one bridge connection.
///
/// Every limit is enforced before memory is committed: a frame whose length
/// prefix exceeds ``maxFrameBytes`` is rejected before its body is read, and
/// inflation stops at ``maxInflatedBytes``.
public struct WireLimits: Sendable, Hashable {
    /// The largest accepted value of a frame's length field (flags byte plus
    /// payload, before inflation).
    public var maxFrameBytes: Int
    /// The largest payload a compressed frame may inflate to.
    public var maxInflatedBytes: Int
    /// Payloads of at least this many bytes are compressed, and sent
    /// compressed only when that makes them smaller.
    public var compressionThreshold: Int
    /// The most bytes that may wait to be written to a peer that is not
    /// reading them; past it the connection is closed as `slow-consumer`
    /// (64 MiB by default, NATS's `max_pending`). Replies to a peer that
    /// sends requests and never reads would otherwise pile up without bound.
    public var maxUnwrittenBytes: Int

    /// Creates limits; the defaults suit search responses and event batches.
    public init(maxFrameBytes: Int = 4 << 20, maxInflatedBytes: Int = 16 << 20, compressionThreshold: Int = 1024, maxUnwrittenBytes: Int = 64 << 20) {
        self.maxFrameBytes = maxFrameBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.compressionThreshold = compressionThreshold
        self.maxUnwrittenBytes = maxUnwrittenBytes
    }
}
