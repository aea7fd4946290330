import Foundation
import Testing

/// Services talk only through the bus: a service target must never import
/// another. This test reads the sources, so it fails on the commit that
/// breaks the rule (ops/check-boundaries.sh does the same in CI).
@Suite("Module boundaries")
struct ServiceBoundaryTests {
    static let services = ["SearchService", "ScoringService", "WatchlistService", "SubscriptionService", "AlertsService", "AnalyticsService"]
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// What a service never imports: it uses the service toolkit
    /// (FareLensServiceKit), and the node host hosts it, in one process or
    /// split, without the service linking the host or the bridge.
    static let hostModules: Set<String> = ["FareLensRuntime", "FareLensWire"]

    /// `(file, imported module)` for every cross-service import under
    /// `sources`, every service the gateway (a bus client) imports, and
    /// every import of the node host or the bridge by either.
    static func violations(in sources: URL) throws -> [(String, String)] {
        var found: [(String, String)] = []
        for service in services + ["FareLensGateway"] {
            let directory = sources.appendingPathComponent(service)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                    guard let importIndex = words.firstIndex(of: "import"), importIndex + 1 < words.count else { continue }
                    let module = words[importIndex + 1]
                    if module != service, services.contains(module) || hostModules.contains(module) { found.append(("\(service)/\(file)", module)) }
                }
            }
        }
        return found
    }

    @Test("The check catches the gateway importing a service")
    func checkCatchesGatewayImport() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("boundary-\(UUID().uuidString)")
        let gateway = root.appendingPathComponent("FareLensGateway")
        try FileManager.default.createDirectory(at: gateway, withIntermediateDirectories: true)
        try "import SubscriptionService\n".write(to: gateway.appendingPathComponent("Bad.swift"), atomically: true, encoding: .utf8)
        #expect(try Self.violations(in: root).map(\.1) == ["SubscriptionService"])
    }

    @Test("No service target imports another service target, the node host or the bridge, and the gateway imports none")
    func noCrossServiceImports() throws {
        #expect(FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent("SearchService").path))
        let found = try Self.violations(in: Self.sources)
        #expect(found.isEmpty, "cross-service imports: \(found)")
    }

    @Test("The check catches a service importing the node host or the bridge")
    func checkCatchesHostImport() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("boundary-\(UUID().uuidString)")
        let search = root.appendingPathComponent("SearchService")
        try FileManager.default.createDirectory(at: search, withIntermediateDirectories: true)
        try "public import FareLensRuntime\nimport FareLensWire\nimport FareLensServiceKit\n".write(to: search.appendingPathComponent("Bad.swift"), atomically: true, encoding: .utf8)
        #expect(try Self.violations(in: root).map(\.1) == ["FareLensRuntime", "FareLensWire"])
    }

    @Test("The check catches a cross-service import")
    func checkCatchesViolation() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("boundary-\(UUID().uuidString)")
        let alerts = root.appendingPathComponent("AlertsService")
        try FileManager.default.createDirectory(at: alerts, withIntermediateDirectories: true)
        try "@testable import ScoringService\n".write(to: alerts.appendingPathComponent("Bad.swift"), atomically: true, encoding: .utf8)
        let found = try Self.violations(in: root)
        #expect(found.count == 1)
        #expect(found.first?.1 == "ScoringService")
    }
}
