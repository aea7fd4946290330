/// Several nodes' Prometheus texts as one exposition a scraper or
/// `promtool check metrics` accepts: one `# HELP` and one `# TYPE` per
/// metric name, however many nodes have it, and every sample labelled with
/// the node it came from (`node="hub"`).
struct MetricsMerge {
    /// One metric name's lines across the nodes.
    private struct Family {
        var help: Substring?
        var type: Substring?
        /// The node whose `# TYPE` line is kept: a node that disagrees has its samples left out.
        var typedBy: String?
        var samples: [String] = []
    }

    private var families: [String: Family] = [:]
    /// "farelens_x is a counter on hub but a gauge on spoke; spoke's samples are left out", one a conflict.
    private(set) var conflicts: [String] = []

    /// Adds `text`, the exposition of node `node` (as its `/metrics` serves it).
    mutating func add(_ text: String, node: String) {
        let label = "node=\"" + Self.escapedLabelValue(node) + "\""
        var current: String?
        var skipping = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let (name, rest) = Self.comment(line, "# HELP ") {
                current = name
                skipping = false
                var family = families[name, default: Family()]
                if family.help == nil { family.help = rest }
                families[name] = family
            } else if let (name, type) = Self.comment(line, "# TYPE ") {
                current = name
                var family = families[name, default: Family()]
                if let kept = family.type, kept != type {
                    conflicts.append("\(name) is a \(kept) on \(family.typedBy ?? "?") but a \(type) on \(node); \(node)'s samples are left out")
                    skipping = true
                } else {
                    skipping = false
                    if family.type == nil { (family.type, family.typedBy) = (type, node) }
                }
                families[name] = family
            } else if line.hasPrefix("#") {
                continue  // another comment: nothing a scraper needs
            } else if !skipping {
                // A sample before any `# TYPE` line is untyped: its own name is its family.
                let name = current ?? String(line.prefix { $0 != "{" && $0 != " " })
                families[name, default: Family()].samples.append(Self.labelled(line, with: label))
            }
        }
    }

    /// The merged exposition: metric names in order, each with its help and type, then every node's samples.
    var text: String {
        var out = ""
        for name in families.keys.sorted() {
            let family = families[name]!
            if let help = family.help { out += "# HELP \(name) \(help)\n" }
            if let type = family.type { out += "# TYPE \(name) \(type)\n" }
            for sample in family.samples { out += sample + "\n" }
        }
        return out
    }

    /// The metric name and the rest of a `# HELP name text` or `# TYPE name type` line.
    private static func comment(_ line: Substring, _ prefix: String) -> (String, Substring)? {
        guard line.hasPrefix(prefix) else { return nil }
        let parts = line.dropFirst(prefix.count).split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty else { return nil }
        return (String(name), parts.count > 1 ? parts[1] : "")
    }

    /// `sample` (`name{a="b"} 1` or `name 1`) with `label` first among its labels.
    static func labelled(_ sample: Substring, with label: String) -> String {
        guard let space = sample.firstIndex(of: " ") else { return String(sample) }
        if let brace = sample.firstIndex(of: "{"), brace < space {
            let inside = sample.index(after: brace)
            let separator = inside < sample.endIndex && sample[inside] == "}" ? "" : ","
            return String(sample[..<inside]) + label + separator + sample[inside...]
        }
        return String(sample[..<space]) + "{" + label + "}" + sample[space...]
    }

    /// A label value as the format writes it: backslash, double quote and line feed escaped.
    static func escapedLabelValue(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
