/// A 128-bit W3C-style trace id, kept as two integers so making one costs
/// no allocation; its text form (32 lowercase hex digits) is built only when
/// it is logged or sent over the wire.
public struct TraceID: Hashable, Sendable, CustomStringConvertible {
    /// The high 64 bits.
    public let high: UInt64
    /// The low 64 bits.
    public let low: UInt64

    /// Creates an id from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses 32 hex digits; nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 32, let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else {
            return nil
        }
        self.init(high: high, low: low)
    }

    /// A random id.
    public static func random() -> TraceID {
        var generator = SystemRandomNumberGenerator()
        return TraceID(high: generator.next(), low: generator.next())
    }

    /// 32 lowercase hex digits.
    public var description: String { Self.hex(high) + Self.hex(low) }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
