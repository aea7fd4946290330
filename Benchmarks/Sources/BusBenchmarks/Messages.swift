import FareLensBus

/// A benchmark message carrying one integer, with a one-byte wire form
/// (the wire is not exercised in process; it only has to exist).
protocol IntMessage: BusMessage {
    var value: Int { get }
    init(value: Int)
}

extension IntMessage {
    init(wireEncoded bytes: [UInt8]) throws { self.init(value: Int(bytes.first ?? 0)) }
    func wireEncoded() throws -> [UInt8] { [UInt8(truncatingIfNeeded: value)] }
}

/// A small request like a cache look-up: a key in, a price out.
struct QuoteRequest: BusRequest, IntMessage {
    typealias Response = QuoteResponse
    static let address: ServiceAddress = "bench"
    static let wireTypeName = "bench.QuoteRequest"
    let value: Int
}

struct QuoteResponse: IntMessage {
    static let wireTypeName = "bench.QuoteResponse"
    let value: Int
}

/// The same request type answered by an isolated handler.
struct IsolatedQuoteRequest: BusRequest, IntMessage {
    typealias Response = QuoteResponse
    static let address: ServiceAddress = "bench-isolated"
    static let wireTypeName = "bench.IsolatedQuoteRequest"
    let value: Int
}

/// A fare observation event (droppable topic, as most are).
struct FareSeen: BusEvent, IntMessage {
    static let topic = Topic("bench.fare-seen")
    static let wireTypeName = "bench.FareSeen"
    let value: Int
}

/// The same on a durable topic (publisher waits for room).
struct DurableFareSeen: BusEvent, IntMessage {
    static let topic = Topic("bench.fare-seen-durable", durable: true)
    static let wireTypeName = "bench.DurableFareSeen"
    let value: Int
}

/// The service state both the reference and the bus handler call into: a
/// small price book keyed by route. Non-trivial but cheap (a dictionary
/// read-modify-write, as a cache look-up would be), and its answer is used
/// by the caller, so neither path can be optimised away.
actor QuoteBook {
    private var prices: [Int: Int] = [:]
    func quote(_ key: Int) -> Int {
        let slot = key & 1023
        let price = prices[slot, default: 10_000] &+ (key & 7)
        prices[slot] = price
        return price
    }
}
