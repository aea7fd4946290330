import FareLensRuntime
import FareLensServiceKit
import Foundation
import Metrics
import Prometheus
import Testing

/// ``MetricsExposition``: the node's registry as Prometheus text, each
/// metric with its `# HELP` (issue #63, item 6).
@Suite("Metrics exposition")
struct MetricsExpositionTests {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `"farelens_…"` string literal in `Sources/`: the names metrics are made with.
    static func metricNamesInSources() throws -> Set<String> {
        var names: Set<String> = []
        let sources = root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: /"(farelens_[a-z0-9_]+)"/) { names.insert(String(match.1)) }
        }
        return names
    }

    @Test("every metric name made in Sources/ has a help text of one line")
    func everyNameHasHelp() throws {
        let names = try Self.metricNamesInSources()
        #expect(names.count >= 30, "\(names.sorted())")
        let missing = names.filter { (MetricsExposition.help[$0] ?? "").isEmpty }
        #expect(missing.isEmpty, "no # HELP text for \(missing.sorted())")
        let multiline = MetricsExposition.help.filter { $0.value.contains("\n") }.map(\.key)
        #expect(multiline.isEmpty, "\(multiline)")
    }

    @Test("a registry filled through swift-metrics is printed with one # HELP and one # TYPE per name, in name order, before the samples")
    func registryWithHelp() throws {
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        Metrics.Counter(label: "farelens_search_cache_misses_total", factory: factory).increment()
        Metrics.Counter(label: "farelens_alerts_decided_total", dimensions: [("decision", "sent")], factory: factory).increment(by: 2)
        Metrics.Counter(label: "farelens_alerts_decided_total", dimensions: [("decision", "held")], factory: factory).increment()
        Metrics.Timer(label: "farelens_bus_request_duration_seconds", dimensions: [("type", "t"), ("address", "a")], factory: factory).recordNanoseconds(1_000)
        let text = MetricsExposition.text(of: registry)
        let parsed = PrometheusText(text)
        #expect(parsed.violations.isEmpty, "\(parsed.violations)\n\(text)")
        #expect(parsed.names == ["farelens_alerts_decided_total", "farelens_bus_request_duration_seconds", "farelens_search_cache_misses_total"])
        for family in parsed.families {
            #expect(family.helpLines == 1 && family.typeLines == 1, "\(family.name)")
            #expect(family.help == MetricsExposition.help[family.name], "\(family.name)")
        }
        #expect(parsed.family("farelens_bus_request_duration_seconds")?.type == "histogram")
        #expect(parsed.family("farelens_alerts_decided_total")?.samples.count == 2)
    }

    @Test("a help line the text already has is kept, not doubled; a name the table does not know gets none")
    func helpKeptOrAbsent() {
        let text = "# TYPE other_total counter\nother_total 1\n# HELP farelens_x_total Own words.\n# TYPE farelens_x_total counter\nfarelens_x_total 2\n"
        #expect(MetricsExposition.withHelp(text) == "# HELP farelens_x_total Own words.\n# TYPE farelens_x_total counter\nfarelens_x_total 2\n# TYPE other_total counter\nother_total 1\n")
    }
}
