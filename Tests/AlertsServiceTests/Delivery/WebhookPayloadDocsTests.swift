@testable import AlertsService
import FareLensMessages
import Foundation
import Testing

/// docs/webhooks.md against the sender (issue #58, item 4: `alert.trial_ending`
/// was sent but not documented): every payload type the sender can emit is
/// in the page's list and has an example there, and the page lists nothing
/// the sender does not know.
@Suite("Webhook payload types documented")
struct WebhookPayloadDocsTests {
    static let page = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/webhooks.md")

    /// Every kind of `AlertKind` but the unset one, as the sender names it in `data.kind`; not
    /// `WATCHLIST_UPDATE`, a silent push's kind, whose outbox rows are push rows only (docs/push.md).
    static var senderKinds: [String] {
        AlertKind.allCases.filter { $0 != .unspecified && $0 != .watchlistUpdate }.map(AlertPayload.kindName)
    }

    /// The text of the section under `## title`, up to the next `## ` heading.
    static func section(_ title: String, of text: String) throws -> Substring {
        let start = try #require(text.range(of: "\n## \(title)\n"), "docs/webhooks.md has no section '## \(title)'")
        let rest = text[start.upperBound...]
        return rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
    }

    /// The backticked values on the table row of `key` (the line starting `| \`key\` |`).
    static func row(_ key: String, in section: Substring) throws -> [String] {
        let line = try #require(section.split(separator: "\n").first { $0.hasPrefix("| `\(key)` |") }, "no table row for `\(key)`")
        let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst(2)
        return cells.joined(separator: "|").matches(of: /`([a-z_.]+)`/).map { String($0.1) }
    }

    @Test("the sender names every alert kind: no kind is sent as alert.unknown")
    func senderNamesEveryKind() {
        let unnamed = AlertKind.allCases.filter { $0 != .unspecified && AlertPayload.kindName($0) == "unknown" }
        #expect(unnamed.isEmpty, "kinds the payload would call unknown: \(unnamed)")
        #expect(Set(Self.senderKinds).count == Self.senderKinds.count)
    }

    @Test("the Payload section's list of types is exactly the types the sender emits")
    func typeListMatchesSender() throws {
        let payload = try Self.section("Payload", of: try String(contentsOf: Self.page, encoding: .utf8))
        let documented = Set(try Self.row("type", in: payload))
        let sent = Set(Self.senderKinds.map { "alert.\($0)" })
        #expect(sent.subtracting(documented).isEmpty, "sent but not documented in docs/webhooks.md § Payload: \(sent.subtracting(documented).sorted())")
        #expect(documented.subtracting(sent).isEmpty, "documented but never sent: \(documented.subtracting(sent).sorted())")
    }

    @Test("every type the sender emits has a JSON example in the Payload section, written as the sender writes it (compact, keys sorted), with its data.kind")
    func everyTypeHasAnExample() throws {
        let payload = try Self.section("Payload", of: try String(contentsOf: Self.page, encoding: .utf8))
        let blocks = payload.matches(of: /```json\n(.*?)\n```/.dotMatchesNewlines()).map { String($0.1) }
        var examples: [String: [String: Any]] = [:]
        for block in blocks {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(block.utf8)) as? [String: Any], "not a JSON object: \(block)")
            let type = try #require(object["type"] as? String, "an example without a type: \(block)")
            let data = try #require(object["data"] as? [String: Any], "an example without data: \(block)")
            #expect(data["kind"] as? String == type.replacingOccurrences(of: "alert.", with: ""), "\(type)'s example has data.kind \(data["kind"] ?? "none")")
            #expect(data["alert_id"] is String && object["timestamp"] is String, "\(type)'s example lacks alert_id or timestamp")
            let rewritten = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            #expect(String(decoding: rewritten, as: UTF8.self) == block, "\(type)'s example is not compact with sorted keys, as the sender writes it")
            examples[type] = object
        }
        let sent = Set(Self.senderKinds.map { "alert.\($0)" })
        let without = sent.subtracting(examples.keys)
        #expect(without.isEmpty, "types the sender emits without an example in docs/webhooks.md § Payload: \(without.sorted())")
        #expect(Set(examples.keys).subtracting(sent).isEmpty, "examples of types never sent: \(Set(examples.keys).subtracting(sent).sorted())")
    }

    @Test("the alert log's list of kinds is exactly the kinds the sender names")
    func logKindsMatchSender() throws {
        let log = try Self.section("The alert log (JSON lines)", of: try String(contentsOf: Self.page, encoding: .utf8))
        let documented = Set(try Self.row("kind", in: log))
        let sent = Set(Self.senderKinds)
        #expect(sent.subtracting(documented).isEmpty, "kinds not documented in docs/webhooks.md § The alert log: \(sent.subtracting(documented).sorted())")
        #expect(documented.subtracting(sent).isEmpty, "documented kinds never logged: \(documented.subtracting(sent).sorted())")
    }
}
