/// Where a durable consumer stands in its stream.
struct ConsumerPosition: Equatable {
    /// The stream sequence up to which every event was acknowledged.
    var acknowledgedThrough: UInt64
    /// Events stored and not yet handed to the consumer.
    var undelivered: UInt64
    /// Events handed to it and not yet acknowledged.
    var unacknowledged: Int64
    /// Everything it has still to settle.
    var lag: UInt64 { undelivered + UInt64(max(0, unacknowledged)) }

    init(acknowledgedThrough: UInt64, undelivered: UInt64, unacknowledged: Int64) {
        self.acknowledgedThrough = acknowledgedThrough
        self.undelivered = undelivered
        self.unacknowledged = unacknowledged
    }

    /// How many events the stream removed (its age limit) before this
    /// consumer acknowledged them, at most: those between its
    /// acknowledged-through mark and the stream's oldest kept one.
    func expired(firstKept: UInt64) -> UInt64 {
        firstKept > acknowledgedThrough + 1 ? firstKept - acknowledgedThrough - 1 : 0
    }
}
