/// A strict reader of the Prometheus text exposition format (0.0.4), for
/// tests: what a scraper would take from `/metrics` or `farelensctl
/// metrics`, and every way the text breaks the format's rules.
///
/// Rules checked (https://prometheus.io/docs/instrumenting/exposition_formats/):
/// at most one `# HELP` and one `# TYPE` line per metric name, both before
/// the name's first sample; a metric's lines form one group (no other
/// metric's lines between them); a sample's name is its metric's name
/// (for a histogram or summary also `_bucket`, `_sum`, `_count`); labels
/// are `name="value"` with `\\`, `\"`, `\n` escapes and no name twice; the
/// value is a number (or `NaN`, `+Inf`, `-Inf`); no series twice.
struct PrometheusText {
    struct Sample: Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Family {
        let name: String
        var help: String?
        var type: String?
        var helpLines = 0
        var typeLines = 0
        var samples: [Sample] = []
    }

    /// The metrics by name, in the order they first appear.
    private(set) var families: [Family] = []
    /// Every rule the text breaks, one line each ("line 12: …").
    private(set) var violations: [String] = []

    var names: [String] { families.map(\.name) }
    var samples: [Sample] { families.flatMap(\.samples) }
    func family(_ name: String) -> Family? { families.first { $0.name == name } }

    init(_ text: String) {
        var index: [String: Int] = [:]
        var current: String?
        var closed: Set<String> = []
        var series: Set<String> = []
        func family(_ name: String, line: Int) -> Int {
            if current != name {
                if let current { closed.insert(current) }
                if closed.contains(name) { violations.append("line \(line): \(name)'s lines are not together (it appeared earlier)") }
                current = name
            }
            if let known = index[name] { return known }
            families.append(Family(name: name))
            index[name] = families.count - 1
            return families.count - 1
        }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = String(raw)
            if line.isEmpty { continue }
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let name = parts.first, Self.isMetricName(name) else {
                    violations.append("line \(number): a comment without a valid metric name: \(line)")
                    continue
                }
                let at = family(name, line: number)
                if !families[at].samples.isEmpty { violations.append("line \(number): \(line.prefix(6)) for \(name) after its samples") }
                let rest = parts.count > 1 ? parts[1] : ""
                if line.hasPrefix("# HELP ") {
                    families[at].helpLines += 1
                    families[at].help = rest
                    if families[at].helpLines > 1 { violations.append("line \(number): a second # HELP for \(name)") }
                } else {
                    families[at].typeLines += 1
                    families[at].type = rest
                    if families[at].typeLines > 1 { violations.append("line \(number): a second # TYPE for \(name)") }
                    if !["counter", "gauge", "histogram", "summary", "untyped"].contains(rest) { violations.append("line \(number): unknown type '\(rest)'") }
                }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let sample = Self.sample(line) else {
                violations.append("line \(number): not a sample: \(line)")
                continue
            }
            let owner = Self.owner(of: sample.name, current: current.flatMap { index[$0] }.map { families[$0] })
            let at = family(owner, line: number)
            if families[at].typeLines == 0 { violations.append("line \(number): a sample of \(owner) before its # TYPE") }
            let key = sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            if !series.insert(key).inserted { violations.append("line \(number): the series \(key) twice") }
            families[at].samples.append(sample)
        }
    }

    /// The metric a sample named `name` belongs to: the current one when it
    /// is that metric's name or, for a histogram or summary, one of its series.
    private static func owner(of name: String, current: Family?) -> String {
        guard let current else { return name }
        if name == current.name { return name }
        if current.type == "histogram" || current.type == "summary" {
            for suffix in ["_bucket", "_sum", "_count"] where name == current.name + suffix { return current.name }
        }
        return name
    }

    static func isMetricName(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    static func isLabelName(_ name: String) -> Bool {
        guard let first = name.first, first.isASCII, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// `name{label="value",…} value [timestamp]`, or nil when it is not one.
    static func sample(_ line: String) -> Sample? {
        var rest = Substring(line)
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        guard isMetricName(name) else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                guard isLabelName(label), labels[label] == nil else { return nil }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                while true {
                    guard let character = rest.first else { return nil }
                    rest = rest.dropFirst()
                    if character == "\"" { break }
                    if character == "\\" {
                        guard let escaped = rest.first else { return nil }
                        rest = rest.dropFirst()
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: return nil
                        }
                    } else {
                        value.append(character)
                    }
                }
                labels[label] = value
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { return nil }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { return nil }
        let fields = rest.split(separator: " ")
        guard (1...2).contains(fields.count) else { return nil }
        let value: Double
        switch fields[0] {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default:
            guard let number = Double(fields[0]) else { return nil }
            value = number
        }
        if fields.count == 2, Int64(fields[1]) == nil { return nil }
        return Sample(name: name, labels: labels, value: value)
    }
}
