import FareLensTesting
import Foundation
import Testing

/// `ops/farelens.example.json`: every key, and a node starts from it.
@Suite("Configuration example")
struct ConfigExampleTests {
    static let example = SystemdUnitTests.repository.appendingPathComponent("ops/farelens.example.json")

    /// Dotted key paths of a JSON object; `_comment` dropped, `_optional.` stripped.
    static func keys(_ object: [String: Any], prefix: String = "") -> Set<String> {
        var keys = Set<String>()
        for (key, value) in object where key != "_comment" {
            let path = key == "_optional" ? prefix : prefix + key + "."
            if let child = value as? [String: Any] {
                keys.formUnion(Self.keys(child, prefix: path))
            } else {
                keys.insert(String((prefix + key).dropLast(0)))
            }
        }
        return keys
    }

    @Test("every key docs/operations.md lists is in the example, and the example lists no key the docs do not")
    func everyKey() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.example)) as? [String: Any])
        let inExample = Self.keys(object)
        let docs = try String(contentsOf: SystemdUnitTests.repository.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let documented = Set(docs.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^\| `([a-zA-Z][a-zA-Z0-9.]*)` \| `FARELENS_/) else { return nil }
            return String(match.1)
        })
        #expect(documented.count >= 50, "the table was found: \(documented.count) keys")
        #expect(documented.subtracting(inExample).isEmpty, "missing from the example: \(documented.subtracting(inExample).sorted())")
        #expect(inExample.subtracting(documented).isEmpty, "in the example, not in docs/operations.md: \(inExample.subtracting(documented).sorted())")
    }

    @Test("a node starts from the example (its data directory given by flag, which wins over the file)")
    func starts() async throws {
        let root = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let node = try NodeProcess.start(["--config", Self.example.path, "--data-dir", root + "/data", "--listen", root + "/node.sock", "--log-level", "error"])
        defer { node.kill() }
        try await node.waitForOutput(containing: "farelens ready: node=farelens")
        #expect(node.output.get().contains("services=analytics,subscription,search,scoring,watchlist,alerts,gateway"))
    }
}
