import FareLensBus
import FareLensMessages
import Foundation
import SwiftProtobuf

/// Turns an event into what `service_event` may keep: its protobuf JSON with
/// every `userId` field removed (at any depth), and the user id it carried,
/// to be pseudonymised by the caller. Generic on purpose: a new event type
/// with a `user_id` field is scrubbed without a change here.
enum EventScrubber {
    struct Scrubbed {
        /// The first non-empty `userId` found; nil when none.
        var userID: String?
        /// Sorted-key JSON without `userId` fields.
        var json: String
    }

    static func scrub(_ event: any BusEvent) -> Scrubbed {
        guard let message = event as? any SwiftProtobuf.Message,
              let bytes: [UInt8] = try? message.jsonUTF8Bytes(),
              let value = PrintedJSON.parse(bytes) else {
            return Scrubbed(userID: nil, json: "{}")
        }
        var userID: String?
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        strip(value, userID: &userID).write(into: &output)
        return Scrubbed(userID: userID, json: String(decoding: output, as: UTF8.self))
    }

    /// `value` without its `userId` members, at any depth; the first non-empty one (keys in sorted order) is kept in `userID`.
    private static func strip(_ value: PrintedJSON, userID: inout String?) -> PrintedJSON {
        switch value {
        case .literal:
            return value
        case .array(let elements):
            return .array(elements.map { strip($0, userID: &userID) })
        case .object(let members):
            var kept: [PrintedJSON.Member] = []
            for member in members.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                if member.key.elementsEqual("userId".utf8) {
                    if userID == nil, case .literal(let text) = member.value, let string = Self.string(text), !string.isEmpty { userID = string }
                    continue
                }
                kept.append(.init(key: member.key, value: strip(member.value, userID: &userID)))
            }
            return .object(kept)
        }
    }

    /// Whether `needle`'s UTF-8 bytes occur in `haystack`'s (``PrintedJSON/occurs(_:in:)``; user ids are ASCII).
    static func occurs(_ needle: String, in haystack: String) -> Bool {
        var needle = needle, haystack = haystack
        return needle.withUTF8 { needle in haystack.withUTF8 { PrintedJSON.occurs(needle, in: $0) } }
    }

    /// A JSON string literal's text; nil if it is not one.
    private static func string(_ literal: ArraySlice<UInt8>) -> String? {
        guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else { return nil }
        guard literal.contains(UInt8(ascii: "\\")) else { return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self) }
        return try? JSONDecoder().decode(String.self, from: Data(literal))
    }
}
