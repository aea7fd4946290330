import FareLensMessages
import Foundation

/// A small JSON writer for the outbox's fixed payload shapes, written by
/// hand because it runs for every accepted alert and every log line, where
/// Foundation's `JSONEncoder` cost more than the rest of a decision
/// (docs/decisions/0006-alert-json-writer.md). It writes what `JSONEncoder`
/// with `.sortedKeys` and `.withoutEscapingSlashes` writes for the same
/// values, byte for byte (`AlertPayloadTests` compares them).
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(512) }

    /// Opens an object; keys must then be written in sorted order.
    mutating func open() { bytes.append(UInt8(ascii: "{")) }

    mutating func close() { bytes.append(UInt8(ascii: "}")) }

    /// Writes `"key":` after a comma when the object already has a member.
    mutating func key(_ key: String) {
        if let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "[") { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    mutating func member(_ name: String, _ value: Int64) {
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    mutating func member(_ name: String, _ values: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// Appends already-encoded JSON (a nested payload) as it is.
    mutating func raw(_ json: some Sequence<UInt8>) { bytes.append(contentsOf: json) }

    /// A JSON string literal (RFC 8259 § 7): quote, backslash and control
    /// characters escaped, everything else as UTF-8, slashes not escaped.
    /// Runs between escapes are copied whole (most strings have none).
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in utf8.indices where Self.needsEscape(utf8[index]) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscaped(utf8[index])
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            let hex = Self.hexDigits
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `values` as a JSON array of strings, `["a","b"]` (the deciding
    /// transaction binds a batch's user ids as one for `json_each`).
    static func array(_ values: [String]) -> String {
        var writer = JSONText()
        writer.bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.string(value)
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var writer = JSONText()
        writer.string(text)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// RFC 3339 in UTC to the second, "2026-11-22T22:46:36Z", without a formatter.
    static func rfc3339(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = Int(seconds - days * 86_400)
        let day = CalendarDate(daysSinceEpoch: Int(days))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(day.year)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(day.month))-\(two(day.day))T\(two(second / 3_600)):\(two(second / 60 % 60)):\(two(second % 60))Z"
    }
}
