/// The `X-Request-ID` the gateway makes for a request that brought none: a
/// version-4 UUID's text (RFC 9562), as Foundation's `UUID().uuidString`
/// lowercased, from 128 bits of the system's random source.
///
/// Not Foundation's `UUID()`: on Linux it opens, reads and closes
/// `/dev/urandom` for every id (three system calls and a path lookup on each
/// request; docs/performance.md, "Gateway … twenty-first sitting").
enum RequestID {
    /// A fresh id, such as `1b4e28ba-2fa1-4d2e-9b3c-6f2e0a1d5c7e`.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return text(high: generator.next(), low: generator.next())
    }

    /// The id of these 128 bits, with the version (4) and variant (`10`) bits set.
    static func text(high: UInt64, low: UInt64) -> String {
        let high = (high & ~0xF000) | 0x4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var at = 0
            func put(_ value: UInt64, nibbles: ClosedRange<Int>) {
                for nibble in nibbles.reversed() {
                    buffer[at] = digits.utf8Start[Int((value >> UInt64(nibble * 4)) & 0xF)]
                    at += 1
                }
            }
            func dash() {
                buffer[at] = UInt8(ascii: "-")
                at += 1
            }
            put(high, nibbles: 8...15)
            dash()
            put(high, nibbles: 4...7)
            dash()
            put(high, nibbles: 0...3)
            dash()
            put(low, nibbles: 12...15)
            dash()
            put(low, nibbles: 0...11)
            return at
        }
    }
}
