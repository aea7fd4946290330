import FareLensBus
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
              let json = try? message.jsonString(),
              let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) else {
            return Scrubbed(userID: nil, json: "{}")
        }
        var userID: String?
        let cleaned = strip(object, userID: &userID)
        guard let data = try? JSONSerialization.data(withJSONObject: cleaned, options: [.sortedKeys]) else {
            return Scrubbed(userID: userID, json: "{}")
        }
        return Scrubbed(userID: userID, json: String(decoding: data, as: UTF8.self))
    }

    private static func strip(_ value: Any, userID: inout String?) -> Any {
        if let object = value as? [String: Any] {
            var kept: [String: Any] = [:]
            for key in object.keys.sorted() {
                guard let child = object[key] else { continue }
                if key == "userId" {
                    if userID == nil, let text = child as? String, !text.isEmpty { userID = text }
                    continue
                }
                kept[key] = strip(child, userID: &userID)
            }
            return kept
        }
        if let array = value as? [Any] { return array.map { strip($0, userID: &userID) } }
        return value
    }
}
