import FareLensBus
import Foundation
import SwiftProtobuf
import Testing

@testable import FareLensMessages

/// farelensctl's `--json`: protobuf's JSON with the fields left at their
/// defaults printed too (README, "every field is present").
@Suite("protobuf JSON with the fields at their defaults")
struct ProtoJSONWithDefaultsTests {
    let printer = ProtoJSONWithDefaults.fareLens

    /// The object `text` holds, or a failed expectation.
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// Whether `text` decodes back into `message`, unknown fields refused.
    func decodesBack<M: SwiftProtobuf.Message & Equatable>(_ text: String, into message: M) throws -> Bool {
        var options = JSONDecodingOptions()
        options.ignoreUnknownFields = false
        return try M(jsonString: text, options: options) == message
    }

    @Test("an empty list is printed as [], where protobuf's JSON leaves it out")
    func emptyList() throws {
        #expect(try AlertHistoryResponse().jsonString() == "{}")
        #expect(try printer.text(of: AlertHistoryResponse()) == #"{"alerts":[]}"#)
        #expect(try printer.text(of: SetAsideEventsResponse()).contains(#""events":[]"#))
    }

    @Test("scalars at zero by type: a string \"\", a number 0, a 64-bit integer \"0\" as protobuf writes them, a bool false, an enum by its zero's name; an unset message is left out")
    func scalars() throws {
        var record = AlertRecord()
        record.alertID = "a1"
        record.content.title = "Tokyo deal dropped to $650"
        var response = AlertHistoryResponse()
        response.alerts = [record]
        let text = try printer.text(of: response)
        let alert = try #require((try object(text)["alerts"] as? [[String: Any]])?.first, "\(text)")
        #expect(alert["alert_id"] as? String == "a1")
        #expect(alert["reason"] as? String == "")
        #expect(alert["attempts"] as? Int == 0)
        #expect(alert["queue_score"] as? Double == 0)
        #expect(alert["decided_at_unix_ms"] as? String == "0")
        #expect(alert["decision"] as? String == "ALERT_DECISION_UNSPECIFIED")
        #expect(alert["cabin"] as? String == "CABIN_UNSPECIFIED")
        #expect(alert["price"] == nil, "a message field has presence: unset, it is left out")
        #expect(alert["departure_date"] == nil)
        // Inside a present message too: the content's empty list of actions.
        let content = try #require(alert["content"] as? [String: Any])
        #expect(content["actions"] as? [Any] != nil && (content["actions"] as? [Any])?.isEmpty == true, "\(text)")
        #expect(content["body"] as? String == "")
        #expect(try decodesBack(text, into: response))
    }

    @Test("a proto3 optional field and a oneof member are left out when unset and printed when set, even at zero")
    func presence() throws {
        var update = UpdateWatchlistRequest()
        update.watchlistID = "w1"
        let unset = try object(try printer.text(of: update))
        #expect(unset["origin"] == nil && unset["mute_days"] == nil && unset["active"] == nil && unset["cabin"] == nil)
        #expect(unset["clear_price_threshold"] as? Bool == false, "no presence: printed at its default")
        update.muteDays = 0
        update.active = false
        let set = try printer.text(of: update)
        #expect(try object(set)["mute_days"] as? Int == 0, "\(set)")
        #expect(try object(set)["active"] as? Bool == false, "\(set)")
        #expect(try decodesBack(set, into: update))

        var dates = WatchlistDates()
        #expect(try printer.text(of: dates) == "{}", "neither member of the oneof is set")
        dates.fixed = FixedDates()
        #expect(try object(try printer.text(of: dates))["flexible"] == nil)
        #expect(try object(try printer.text(of: dates))["fixed"] != nil)
    }

    @Test("an empty map is printed as {}, and a present one as it is")
    func maps() throws {
        var load = NodeLoadResponse()
        load.nodeName = "hub"
        let empty = try object(try printer.text(of: load))
        #expect((empty["in_flight"] as? [String: Any])?.isEmpty == true)
        #expect((empty["queued_events"] as? [String: Any])?.isEmpty == true)
        load.inFlight = ["search": 3]
        load.queuedEvents = ["*": 12_345_678_901]
        let text = try printer.text(of: load)
        #expect(try decodesBack(text, into: load), "\(text)")
        var event = RecordClientEventRequest()
        event.properties = ["screen": "deal/detail", "emoji": "✈️"]
        #expect(try decodesBack(try printer.text(of: event), into: event))
    }

    @Test("what protobuf prints survives the printer: doubles, 64-bit integers, escapes, non-ASCII text and slashes, in generated messages")
    func roundTrips() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var record = AlertRecord()
            record.alertID = "a\(UInt64.random(in: 0...UInt64.max, using: &generator))"
            record.reason = ["Quiet hours (22:00–07:00); held for the digest", "quote \" backslash \\ tab \t line\n", "/path/with/slashes", "日本語", ""].randomElement(using: &generator)!
            record.queueScore = [0, 0.1, 1e-9, 123_456.789, -0.5, 1e300, Double.leastNonzeroMagnitude].randomElement(using: &generator)!
            record.dealScore = Int32.random(in: Int32.min...Int32.max, using: &generator)
            record.decidedAtUnixMs = Int64.random(in: Int64.min...Int64.max, using: &generator)
            record.attempts = Int32.random(in: 0...3, using: &generator)
            record.decision = AlertDecision(rawValue: Int.random(in: 0...7, using: &generator)) ?? .sent
            if Bool.random(using: &generator) { record.price = Money(minorUnits: Int64.random(in: 0...1_000_000, using: &generator), currency: "USD") }
            record.content.actions = Array([AlertAction.view, .muteRoute, .pause].prefix(Int.random(in: 0...3, using: &generator)))
            var response = AlertHistoryResponse()
            response.alerts = Array(repeating: record, count: Int.random(in: 0...2, using: &generator))
            let text = try printer.text(of: response)
            #expect(try decodesBack(text, into: response), "\(text)")
            #expect(!text.contains(#"\/"#), "a slash is not escaped: \(text)")
        }
    }

    @Test("keys are sorted by their bytes in every object, the text is one line, and a string's escapes are kept as protobuf wrote them")
    func sortedAndCompact() throws {
        var record = AlertRecord()
        record.alertID = "a1"
        record.reason = "quote \" and \\ and \u{1}"
        record.content.title = "Tokyo"
        var response = AlertHistoryResponse()
        response.alerts = [record, record]
        let text = try printer.text(of: response)
        #expect(!text.contains("\n") && !text.contains(" :") && !text.contains(", "), "\(text)")
        // Each object's keys in the order printed, read with a scanner of the test's own.
        var objects: [[String]] = []
        var open: [Int] = []
        var inString = false, escaped = false, token = "", lastString = ""
        for character in text {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false; lastString = token } else { token.append(character) }
                continue
            }
            switch character {
            case "\"": inString = true; token = ""
            case "{": objects.append([]); open.append(objects.count - 1)
            case "}": open.removeLast()
            case ":": objects[open.last!].append(lastString)
            default: break
            }
        }
        #expect(objects.count == 5, "the response, two records, their contents: \(text)")
        for keys in objects {
            #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, "\(keys)")
        }
        #expect(objects[1].count > 10 && objects[1].contains("queue_score") && objects[1].contains("alert_id"), "\(objects)")
        #expect(text.contains(#""reason":"quote \" and \\ and \u0001""#), "\(text)")
        #expect(try decodesBack(text, into: response))
    }

    @Test("the printer's reader takes objects and arrays apart, keeps every other value's bytes, and refuses what is not one JSON value")
    func reader() throws {
        func rewritten(_ text: String) -> String? {
            guard let value = PrintedJSON.parse(Array(text.utf8)) else { return nil }
            var output: [UInt8] = []
            value.write(into: &output)
            return String(decoding: output, as: UTF8.self)
        }
        #expect(rewritten(#"{"b":1,"a":[true,null,"x\"}"],"a_b":{"z":1.5e-7,"y":"-0"}}"#) == #"{"a":[true,null,"x\"}"],"a_b":{"y":"-0","z":1.5e-7},"b":1}"#)
        #expect(rewritten(" { \"k\" : [ 1 , 2 ] } ") == #"{"k":[1,2]}"#)
        #expect(rewritten("[]") == "[]")
        #expect(rewritten("{}") == "{}")
        for broken in ["", "{", "{\"a\":}", "{\"a\" 1}", "[1,", "[1 2]", "\"open", "{\"a\":1}}", "{a:1}", String(repeating: "[", count: 200) + String(repeating: "]", count: 200)] {
            #expect(rewritten(broken) == nil, "\(broken)")
        }
    }

    @Test("a descriptor set that does not decode prints every message as protobuf does")
    func withoutDescriptors() throws {
        let plain = ProtoJSONWithDefaults(descriptorSetBase64: "not a descriptor set")
        #expect(!plain.knows(AlertHistoryResponse.self))
        var options = JSONEncodingOptions()
        options.preserveProtoFieldNames = true
        var record = AlertRecord()
        record.alertID = "a1"
        #expect(try plain.text(of: record) == record.jsonString(options: options))
        #expect(try plain.text(of: AlertHistoryResponse()) == "{}")
    }
}
