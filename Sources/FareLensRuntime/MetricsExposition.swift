import FareLensServiceKit
public import Prometheus

/// A node's metrics as Prometheus text (exposition format 0.0.4), as
/// `GET /metrics` and `farelensctl metrics` serve them: one block per
/// metric name, in name order, each a `# HELP` line (``help``), a
/// `# TYPE` line and its samples.
///
/// The help is added to the registry's text here rather than given to the
/// registry: swift-prometheus 2.4.1 takes help text only through its own
/// API (`makeCounter(descriptor:)`), while every FareLens metric is made
/// through swift-metrics, whose bridge (`PrometheusMetricsFactory`, the one
/// `farelens` bootstraps) registers each with an empty help, and the
/// registry stops the process (`fatalError`) when one name is registered
/// with two different helps. Giving the registry the help would take a
/// metrics factory of our own in `farelens`'s `main`.
public enum MetricsExposition {
    /// `registry`'s text with a `# HELP` line before each `# TYPE` line
    /// (``withHelp(_:)``).
    public static func text(of registry: PrometheusCollectorRegistry) -> String {
        withHelp(registry.emitToString())
    }

    /// `text` (the registry's exposition) with its metric blocks in name
    /// order and a `# HELP` line from ``help`` at the head of each block that
    /// has none. A name without a help line keeps none.
    public static func withHelp(_ text: String) -> String {
        var blocks: [(name: String, lines: [Substring])] = []
        var helped: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let name = metricName(line, comment: "# HELP ") {
                helped.insert(name)
                blocks.append((name, [line]))
            } else if let name = metricName(line, comment: "# TYPE ") {
                if blocks.last?.name == name, helped.contains(name) {
                    blocks[blocks.count - 1].lines.append(line)
                } else {
                    blocks.append((name, [line]))
                }
            } else if blocks.isEmpty {
                blocks.append(("", [line]))
            } else {
                blocks[blocks.count - 1].lines.append(line)
            }
        }
        var out = ""
        out.reserveCapacity(text.utf8.count + blocks.count * 96)
        // Stable: a name's block keeps its place among equal names (there are none in a registry's text).
        for block in blocks.enumerated().sorted(by: { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }).map(\.element) {
            if !helped.contains(block.name), let help = help[block.name] {
                out += "# HELP \(block.name) \(escapedHelp(help))\n"
            }
            for line in block.lines {
                out += line
                out += "\n"
            }
        }
        return out
    }

    /// The metric name of a `# HELP name …` or `# TYPE name …` line.
    private static func metricName(_ line: Substring, comment: String) -> String? {
        guard line.hasPrefix(comment) else { return nil }
        return line.dropFirst(comment.count).split(separator: " ", maxSplits: 1).first.map(String.init)
    }

    /// Help text as the format writes it: backslash and line feed escaped.
    private static func escapedHelp(_ help: String) -> String {
        var escaped = ""
        for character in help {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
