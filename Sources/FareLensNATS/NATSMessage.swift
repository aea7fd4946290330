#if NATS
import CNats

/// A message the C client handed over; destroyed with this object. A
/// JetStream message is acknowledged through ``acknowledge()``.
// @unchecked Sendable: the pointer is owned by this object alone and only
// read after creation, the subscription is set once (`let`); libnats's
// message functions are thread-safe.
final class NATSMessage: @unchecked Sendable {
    private let pointer: OpaquePointer
    /// The subscription a JetStream message came from, kept as long as the
    /// message: libnats acknowledges through the subscription the message
    /// points to (`_ackMsg` reads it, its connection and its JetStream
    /// context) without holding it, so a message settled after its node's
    /// consumer went away (a subscriber done with a buffered event late)
    /// would otherwise write through freed memory.
    private let subscription: NATSPullSubscription?

    init(taking pointer: OpaquePointer, from subscription: NATSPullSubscription? = nil) {
        self.pointer = pointer
        self.subscription = subscription
    }

    deinit { natsMsg_Destroy(pointer) }

    /// The subject it was published on.
    var subject: String { String(cString: natsMsg_GetSubject(pointer)) }

    /// Where to answer, when the publisher asked for an answer.
    var reply: String? { natsMsg_GetReply(pointer).map { String(cString: $0) } }

    /// The payload.
    var payload: [UInt8] {
        let count = Int(natsMsg_GetDataLength(pointer))
        guard count > 0, let data = natsMsg_GetData(pointer) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// Whether this is the server's "no responders" status for a request.
    var isNoResponders: Bool { natsMsg_IsNoResponders(pointer) }

    /// The value of header `name`, if it has one.
    func header(_ name: String) -> String? {
        var value: UnsafePointer<CChar>?
        guard natsMsgHeader_Get(pointer, name, &value) == NATS_OK, let value else { return nil }
        return String(cString: value)
    }

    /// How many times JetStream has delivered it (1 the first time).
    var deliveryCount: UInt64 {
        var meta: UnsafeMutablePointer<jsMsgMetaData>?
        guard natsMsg_GetMetaData(&meta, pointer) == NATS_OK, let meta else { return 1 }
        defer { jsMsgMetaData_Destroy(meta) }
        return meta.pointee.NumDelivered
    }

    /// Acknowledges a JetStream message: its consumer is done with it.
    func acknowledge() {
        _ = natsMsg_Ack(pointer, nil)
    }
}
#endif
