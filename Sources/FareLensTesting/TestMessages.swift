public import FareLensBus

/// A request answered by the `echo` test service.
public struct EchoRequest: BusRequest, JSONWireMessage, Equatable {
    public typealias Response = EchoResponse
    public static let address: ServiceAddress = "echo"
    public var text: String
    public init(text: String) { self.text = text }
}

/// The reply to ``EchoRequest``.
public struct EchoResponse: JSONWireMessage, Equatable {
    public var text: String
    public init(text: String) { self.text = text }
}

/// A request to the `slow` test service; the handler decides how slow.
public struct SlowRequest: BusRequest, JSONWireMessage {
    public typealias Response = EchoResponse
    public static let address: ServiceAddress = "slow"
    public var label: String
    public init(label: String = "") { self.label = label }
}

/// A second request type at the `echo` address (same service, other message).
public struct ShoutRequest: BusRequest, JSONWireMessage {
    public typealias Response = EchoResponse
    public static let address: ServiceAddress = "echo"
    public var text: String
    public init(text: String) { self.text = text }
}

/// A durable test event (like a price drop: losing it would lose an alert).
public struct PriceDropped: BusEvent, JSONWireMessage, Equatable {
    public static let topic = Topic("test.price-dropped", durable: true)
    public var route: String
    public var sequence: Int
    public init(route: String, sequence: Int) {
        self.route = route
        self.sequence = sequence
    }
}

/// A droppable test event (like a metrics tick).
public struct Tick: BusEvent, JSONWireMessage, Equatable {
    public static let topic = Topic("test.tick")
    public var sequence: Int
    public init(sequence: Int) { self.sequence = sequence }
}
