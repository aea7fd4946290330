import FareLensBus

/// A small request like a cache look-up: a key in, a price out.
struct QuoteRequest: BusRequest {
    typealias Response = QuoteResponse
    static let address: ServiceAddress = "bench"
    static let wireTypeName = "bench.QuoteRequest"
    var key: Int
    init(key: Int) { self.key = key }
    init(wireEncoded bytes: [UInt8]) throws { key = Int(bytes.first ?? 0) }
    func wireEncoded() throws -> [UInt8] { [UInt8(truncatingIfNeeded: key)] }
}

struct QuoteResponse: BusMessage {
    static let wireTypeName = "bench.QuoteResponse"
    var amountMinor: Int
    init(amountMinor: Int) { self.amountMinor = amountMinor }
    init(wireEncoded bytes: [UInt8]) throws { amountMinor = Int(bytes.first ?? 0) }
    func wireEncoded() throws -> [UInt8] { [UInt8(truncatingIfNeeded: amountMinor)] }
}

/// The same request type answered by an isolated handler.
struct IsolatedQuoteRequest: BusRequest {
    typealias Response = QuoteResponse
    static let address: ServiceAddress = "bench-isolated"
    static let wireTypeName = "bench.IsolatedQuoteRequest"
    var key: Int
    init(key: Int) { self.key = key }
    init(wireEncoded bytes: [UInt8]) throws { key = Int(bytes.first ?? 0) }
    func wireEncoded() throws -> [UInt8] { [UInt8(truncatingIfNeeded: key)] }
}

/// A fare observation event (droppable topic, as most are).
struct FareSeen: BusEvent {
    static let topic = Topic("bench.fare-seen")
    static let wireTypeName = "bench.FareSeen"
    var amountMinor: Int
    init(amountMinor: Int) { self.amountMinor = amountMinor }
    init(wireEncoded bytes: [UInt8]) throws { amountMinor = Int(bytes.first ?? 0) }
    func wireEncoded() throws -> [UInt8] { [UInt8(truncatingIfNeeded: amountMinor)] }
}

/// The same on a durable topic (publisher waits for room).
struct DurableFareSeen: BusEvent {
    static let topic = Topic("bench.fare-seen-durable", durable: true)
    static let wireTypeName = "bench.DurableFareSeen"
    var amountMinor: Int
    init(amountMinor: Int) { self.amountMinor = amountMinor }
    init(wireEncoded bytes: [UInt8]) throws { amountMinor = Int(bytes.first ?? 0) }
    func wireEncoded() throws -> [UInt8] { [UInt8(truncatingIfNeeded: amountMinor)] }
}

/// The service state both the reference and the bus handler call into.
actor QuoteBook {
    private var total = 0
    func quote(_ key: Int) -> Int {
        total &+= key
        return total
    }
}
