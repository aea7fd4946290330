/// A value that can travel over the bus.
///
/// In process a message is passed as a value and never serialized; only a
/// transport (the Unix-socket bridge) calls ``wireEncoded()`` and
/// ``init(wireEncoded:)``. The generated protobuf messages get both from a
/// protocol extension in `FareLensMessages`.
public protocol BusMessage: Sendable {
    /// A stable, unique name for the message type, used on the wire
    /// (for protobuf messages: the fully qualified proto name).
    static var wireTypeName: String { get }
    /// Serializes the message for a transport.
    func wireEncoded() throws -> [UInt8]
    /// Deserializes a message received from a transport.
    init(wireEncoded bytes: [UInt8]) throws
}

/// A request: it names its response type and the service that answers it.
///
/// Because ``Response`` is an associated type, a handler registered with
/// ``MessageBus/serve(_:execution:maxInFlight:handler:)`` must return exactly
/// `Request.Response`; the compiler rejects any other pairing.
public protocol BusRequest: BusMessage {
    /// The type of the reply.
    associatedtype Response: BusMessage
    /// The service that handles this request.
    static var address: ServiceAddress { get }
}

/// An event: it names the topic it is published on.
public protocol BusEvent: BusMessage {
    /// The topic of this event type.
    static var topic: Topic { get }
}

/// The name of a service on the bus, such as `search` or `alerts`.
public struct ServiceAddress: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The address as written on the wire.
    public let name: String
    /// Creates an address from its name.
    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }
    public var description: String { name }
}

/// A publish/subscribe topic.
///
/// A *durable* topic is one whose loss would lose a user's alert (price
/// drops, threshold crossings, exceptional deals, purchases). Durable topics
/// are delivered at least once with consumer-side dedupe, and a publisher
/// waits for room instead of dropping; other topics are at most once and drop
/// (counted) when a subscriber's buffer is full.
public struct Topic: Hashable, Sendable, CustomStringConvertible {
    /// The topic name as written on the wire, e.g. `search.fare-observed`.
    public let name: String
    /// Whether the topic has at-least-once delivery with publisher backpressure.
    public let isDurable: Bool
    /// Creates a topic.
    public init(_ name: String, durable: Bool = false) {
        self.name = name
        self.isDurable = durable
    }
    public var description: String { name }
}
