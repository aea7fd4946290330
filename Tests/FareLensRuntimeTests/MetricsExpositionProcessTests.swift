import AsyncHTTPClient
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// What real `farelens` processes serve as metrics, read with a strict
/// exposition parser (``PrometheusText``): one node's `/metrics` just after
/// start, three nodes through `farelensctl metrics`, and the names alert
/// decisions have there and in `farelensctl` (issue #63, items 5 and 6).
@Suite("Metrics exposition across processes")
struct MetricsExpositionProcessTests {
    /// The metric names docs/runbook.md tells an operator to watch:
    /// `farelens_wire_frames_{received,sent}_total` as both names and
    /// `farelens_wire_bytes_*` as a prefix (`*` kept at the end).
    static func runbookNames() throws -> Set<String> {
        let runbook = try String(contentsOf: MetricsExpositionTests.root.appendingPathComponent("docs/runbook.md"), encoding: .utf8)
        var names: Set<String> = []
        for match in runbook.matches(of: /(farelens_[a-z_]+)(?:\{([a-z,]+)\}([a-z_]+))?(\*)?/) {
            if let alternatives = match.2, let suffix = match.3 {
                for alternative in alternatives.split(separator: ",") { names.insert("\(match.1)\(alternative)\(suffix)") }
            } else {
                names.insert(String(match.1) + (match.4 == nil ? "" : "*"))
            }
        }
        return names
    }

    /// A gateway's request count and latency are per route and status:
    /// a route's series appear with its first answer (docs/runbook.md says so).
    static let perRequest: Set<String> = ["farelens_gateway_requests_total", "farelens_gateway_request_duration_seconds"]

    /// The runbook's names (or prefixes) that none of `names` matches.
    static func missing(from names: [String]) throws -> [String] {
        try runbookNames().subtracting(perRequest).filter { wanted in
            wanted.hasSuffix("*") ? !names.contains { $0.hasPrefix(wanted.dropLast()) } : !names.contains(wanted)
        }.sorted()
    }

    /// A fresh directory for one test's sockets and data.
    static func directory() -> String {
        temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
    }

    /// `GET /metrics` on `port`.
    static func scrape(_ port: Int) async throws -> String {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
            let text = String(buffer: try await response.body.collect(upTo: 10 << 20))
            try await client.shutdown()
            return text
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A node started with `arguments` and `/metrics` on a port the system chose, once ready.
    static func startWithMetrics(_ arguments: [String]) async throws -> (node: NodeProcess, port: Int) {
        let node = try NodeProcess.start(arguments + ["--log-level", "info", "--metrics-listen", "127.0.0.1:0"])
        do {
            try await node.waitForOutput(containing: "farelens ready")
            let port = try #require(node.output.get().firstMatch(of: /http:\/\/127\.0\.0\.1:([0-9]+)\/metrics/).flatMap { Int($0.1) })
            return (node, port)
        } catch {
            node.kill()
            throw error
        }
    }

    @Test("one node, just started, serves valid exposition text: one # HELP and one # TYPE before each metric's samples, every metric the runbook names, no 'unspecified' label value")
    func oneNodeAtStart() async throws {
        let directory = Self.directory()
        let (node, port) = try await Self.startWithMetrics([
            "--node-name", "solo", "--data-dir", directory + "/solo", "--listen", directory + "/solo.sock", "--http-listen", "127.0.0.1:0",
        ])
        defer { node.kill() }
        let text = try await Self.scrape(port)
        let parsed = PrometheusText(text)
        #expect(parsed.violations.isEmpty, "\(parsed.violations)")
        #expect(parsed.names.count >= 25, "\(parsed.names)")
        for family in parsed.families {
            #expect(family.helpLines == 1 && !(family.help ?? "").isEmpty, "\(family.name): \(family.helpLines) # HELP lines")
            #expect(family.typeLines == 1, "\(family.name): \(family.typeLines) # TYPE lines")
        }
        let unspecified = parsed.samples.filter { $0.labels.values.contains { $0.lowercased() == "unspecified" } }
        #expect(unspecified.isEmpty, "\(unspecified.map(\.name))")
        let missing = try Self.missing(from: parsed.names)
        #expect(missing == [], "named in docs/runbook.md, absent at start: \(missing)")
        // The ones issue #63 found absent: the quota with only the simulated market, errors before the first.
        #expect(parsed.samples.contains(PrometheusText.Sample(name: "farelens_search_quota_used", labels: ["provider": "simulated"], value: 0)))
        #expect(parsed.samples.contains { $0.name == "farelens_bus_request_errors_total" && $0.labels["kind"] == "timeout" && $0.value == 0 })
    }

    @Test("farelensctl metrics over three nodes is one valid exposition: one # HELP and # TYPE per name across the nodes, every sample labelled with its node")
    func threeNodesThroughTheCLI() async throws {
        let directory = Self.directory()
        let socket = directory + "/hub.sock"
        let hub = try NodeProcess.start([
            "--services", "search,scoring,gateway", "--node-name", "hub", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "info",
            "--http-listen", "127.0.0.1:0",
        ])
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")
        var spokes: [NodeProcess] = []
        defer { for spoke in spokes { spoke.kill() } }
        for (name, services) in [("accounts", "watchlist,subscription"), ("alerts", "alerts,analytics")] {
            let spoke = try NodeProcess.start(["--services", services, "--node-name", name, "--data-dir", directory + "/" + name, "--connect", socket, "--log-level", "info"])
            spokes.append(spoke)
            try await spoke.waitForOutput(containing: "joined the hub")
        }
        let all = try await farelensctl(["--socket", socket, "metrics"])
        #expect(all.status == 0, "\(all.stderr)")
        let parsed = PrometheusText(all.stdout)
        #expect(parsed.violations.isEmpty, "\(parsed.violations)")
        for family in parsed.families {
            #expect(family.helpLines == 1 && family.typeLines == 1, "\(family.name): \(family.helpLines) # HELP, \(family.typeLines) # TYPE")
        }
        let unlabelled = parsed.samples.filter { $0.labels["node"] == nil }
        #expect(unlabelled.isEmpty, "\(unlabelled.prefix(3))")
        #expect(Set(parsed.samples.compactMap { $0.labels["node"] }) == ["hub", "accounts", "alerts"])
        #expect(parsed.samples.contains { $0.name == "farelens_alerts_decided_total" && $0.labels == ["node": "alerts", "decision": "sent"] })
        #expect(parsed.samples.contains { $0.name == "farelens_wire_frames_sent_total" && $0.labels == ["node": "accounts", "peer": "hub"] })
        #expect(try Self.missing(from: parsed.names) == [])

        let one = try await farelensctl(["--socket", socket, "metrics", "--node", "alerts"])
        #expect(one.status == 0, "\(one.stderr)")
        let alone = PrometheusText(one.stdout)
        #expect(alone.violations.isEmpty, "\(alone.violations)")
        #expect(!alone.samples.isEmpty && alone.samples.allSatisfy { $0.labels["node"] == "alerts" })
    }

    /// The option's help text is checked by `AlertDecisionOptionTests.help`, and the reports' rows by `DecisionNameTests`.
    @Test("an alert decision has one name in the metrics and in farelensctl's --decision (its refusal, what it accepts): the .proto value in lower snake_case")
    func oneNamePerDecision() async throws {
        // The rule itself, from the .proto names protobuf's JSON prints (`NOT_ALERTABLE` → `not_alertable`).
        var expected: [String] = []
        for decision in AlertDecision.recorded {
            var record = AlertRecord()
            record.decision = decision
            let json = try #require(try JSONSerialization.jsonObject(with: Data(try ProtoJSONWithDefaults.fareLens.text(of: record).utf8)) as? [String: Any])
            expected.append(try #require(json["decision"] as? String).lowercased())
        }
        #expect(expected == ["sent", "held", "deduped", "capped", "muted", "stale_price", "not_alertable"])
        #expect(AlertDecision.recorded.map(\.name) == expected)

        let directory = Self.directory()
        let socket = directory + "/alerts.sock"
        let (node, port) = try await Self.startWithMetrics(["--services", "alerts,subscription", "--node-name", "alerts", "--data-dir", directory + "/alerts", "--listen", socket])
        defer { node.kill() }
        let metrics = PrometheusText(try await Self.scrape(port))
        let labels = metrics.family("farelens_alerts_decided_total")?.samples.compactMap { $0.labels["decision"] } ?? []
        #expect(Set(labels) == Set(expected), "metrics: \(labels.sorted())")
        #expect(labels.count == expected.count, "one series a decision, none for an unset one")

        let refused = try await farelensctl(["--socket", socket, "alerts", "history", "--user", "u-1", "--decision", "not-alertable"])
        #expect(refused.status != 0)
        let listed = try #require(refused.stderr.firstMatch(of: /use one of ([a-z_, ]+)/)).1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(listed == expected, "\(refused.stderr)")

        let created = try await farelensctl(["--socket", socket, "users", "create", "--email", "names@example.com", "--time-zone", "UTC", "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let user = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        for name in expected {
            let history = try await farelensctl(["--socket", socket, "alerts", "history", "--user", user, "--decision", name])
            #expect(history.status == 0 && history.stdout.contains("No alert decisions"), "\(name): \(history.stdout)\(history.stderr)")
        }
    }
}
