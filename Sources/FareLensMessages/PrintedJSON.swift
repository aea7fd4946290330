/// A JSON text as SwiftProtobuf printed it, taken apart only as far as
/// ``ProtoJSONWithDefaults`` needs: objects into their members and arrays
/// into their elements; every other value (a string with its escapes, a
/// number, `true`, `false`, `null`) stays the exact bytes protobuf wrote.
///
/// So nothing protobuf formats (a double's shortest digits, a 64-bit
/// integer as a string, an escape) is re-formatted on the way through, and
/// the cost is one pass over the bytes: the Foundation round trip this
/// replaces (`JSONSerialization` both ways, keys sorted with locale-aware
/// comparison) took 63% of the gateway's CPU on a cached search
/// (docs/decisions/0025-json-defaults-without-foundation.md).
///
/// Protobuf's own output is well-formed; any other text (a request's body)
/// that is not one JSON value is reported as nil, never trapped on. Values
/// other than objects and arrays are not checked, only delimited.
package indirect enum PrintedJSON: Sendable {
    /// An object's members in the order printed; a key is its bytes without the quotes.
    case object([Member])
    case array([PrintedJSON])
    /// A string (quotes and escapes included), number, `true`, `false` or `null`, as printed.
    case literal(ArraySlice<UInt8>)

    package struct Member: Sendable {
        package var key: ArraySlice<UInt8>
        package var value: PrintedJSON

        package init(key: ArraySlice<UInt8>, value: PrintedJSON) {
            self.key = key
            self.value = value
        }
    }

    /// The value `bytes` hold, or nil if they are not one JSON value.
    package static func parse(_ bytes: [UInt8]) -> PrintedJSON? {
        var reader = Reader(bytes: bytes)
        guard let value = reader.value() else { return nil }
        reader.skipSpace()
        return reader.position == bytes.count ? value : nil
    }

    /// Compact text: no spaces, each object's members sorted by their keys' bytes.
    package func write(into output: inout [UInt8]) {
        switch self {
        case .literal(let bytes):
            output.append(contentsOf: bytes)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.append(UInt8(ascii: "\""))
                output.append(contentsOf: member.key)
                output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
                member.value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A cursor over the bytes; each method returns nil on anything that is not JSON.
    private struct Reader {
        let bytes: [UInt8]
        var position = 0
        /// Objects and arrays open: a text nested deeper than protobuf's own limit is refused, not recursed into.
        var depth = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value() -> PrintedJSON? {
            skipSpace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""):
                guard let string = string() else { return nil }
                return .literal(bytes[string.lowerBound - 1...string.upperBound])
            default:
                let start = position
                while position < bytes.count, !",]} \n\r\t".utf8.contains(bytes[position]) { position += 1 }
                return position > start ? .literal(bytes[start..<position]) : nil
            }
        }

        /// The bytes between a string's quotes (escapes kept); the cursor ends after the closing quote.
        mutating func string() -> Range<Int>? {
            position += 1
            let start = position
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\\"): position += 2
                case UInt8(ascii: "\""):
                    position += 1
                    return start..<(position - 1)
                default: position += 1
                }
            }
            return nil
        }

        mutating func object() -> PrintedJSON? {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= 100 else { return nil }
            var members: [Member] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let value = value() else { return nil }
                members.append(Member(key: bytes[key], value: value))
                skipSpace()
                guard position < bytes.count else { return nil }
                position += 1
                switch bytes[position - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default: return nil
                }
            }
        }

        mutating func array() -> PrintedJSON? {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= 100 else { return nil }
            var elements: [PrintedJSON] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                guard let element = value() else { return nil }
                elements.append(element)
                skipSpace()
                guard position < bytes.count else { return nil }
                position += 1
                switch bytes[position - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(elements)
                default: return nil
                }
            }
        }
    }
}
