import ArgumentParser
import FareLensBus
import FareLensMessages
import Foundation

/// `farelensctl status`: every process in the mesh.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every process in the mesh: pid, node name, services, uptime, version, load.",
        discussion: """
            LOAD is what each connected node is doing now: requests in flight and events waiting in its \
            subscriber queues (--json: per service and per topic). An away node shows the durable events \
            the hub keeps for it.

            Exit status: 0 when every node the hub knows is up; 3 when a node is away or a service has no \
            connected node (an away node's services, and those named with --expect); --json says which \
            (away_nodes, missing_services). A health check can run it as it is.

            Example: farelensctl status --socket /run/farelens/hub.sock --expect search,alerts,gateway --json
            """
    )

    @Option(name: .long, help: "Services that must have a connected node, comma-separated (e.g. search,alerts,gateway): status exits 3 otherwise.")
    var expect: String?
    @OptionGroup var options: ConnectionOptions

    /// The exit status when a node or service is away.
    static let degradedExitStatus: Int32 = 3

    func validate() throws { _ = try expectedServices() }

    /// `--expect`'s names; refused when one is empty.
    func expectedServices() throws -> [String] {
        guard let expect else { return [] }
        let names = expect.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.contains(where: \.isEmpty) else { throw ValidationError("--expect must be service names separated by commas (search,alerts), not '\(expect)'") }
        return names
    }

    /// What is away: nodes the hub knows that are not connected, and the
    /// services (an away node's, and `expected`) that no connected node hosts.
    static func health(_ status: MeshStatusResponse, expected: [String]) -> (awayNodes: [String], missingServices: [String]) {
        let away = status.nodes.filter { !$0.connected }
        let hosted = Set(status.nodes.filter(\.connected).flatMap(\.services))
        let wanted = Set(away.flatMap(\.services).filter { !$0.hasPrefix("admin") } + expected)
        return (away.map(\.nodeName), wanted.subtracting(hosted).sorted())
    }

    func run() async throws {
        let expected = try expectedServices()
        let (status, loads, rates) = try await CtlRun.session(options) { session in
            let status = try await session.request(MeshStatusRequest())
            var loads: [String: NodeLoadResponse] = [:]
            // A node that cannot say (busy past the budget, or older) shows "-".
            for node in status.nodes where node.connected {
                loads[node.nodeName] = try? await session.request(NodeLoadRequest(), node: node.nodeName)
            }
            // Search's exchange rates (issue #60), when a connected node hosts search: stale ones are a warning.
            let searching = status.nodes.contains { $0.connected && $0.services.contains("search") }
            let rates = searching ? try? await session.request(ExchangeRatesRequest()) : nil
            return (status, loads, rates)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let (awayNodes, missingServices) = Self.health(status, expected: expected)
        let healthy = awayNodes.isEmpty && missingServices.isEmpty
        if options.json {
            let nodes = status.nodes.map { node in
                NodeJSON(
                    node: node.nodeName, pid: node.pid, role: node.isHub ? "hub" : node.overNats ? "nats" : "spoke",
                    connected: node.connected, services: node.services.filter { !$0.hasPrefix("admin") },
                    uptimeSeconds: node.connected ? max(0, (now - node.startedAtUnixMs) / 1000) : nil,
                    version: node.softwareVersion, pendingDurableEvents: node.pendingDurableEvents,
                    inFlight: loads[node.nodeName].map { $0.inFlight.mapValues(Int.init) },
                    queuedEvents: loads[node.nodeName].map { $0.queuedEvents.mapValues(Int.init) }
                )
            }
            let exchangeRates = rates.map {
                RatesJSON(date: $0.date, businessDaysOld: Int($0.businessDaysOld), stale: $0.stale, source: $0.source, lastError: $0.lastError.isEmpty ? nil : $0.lastError)
            }
            try CtlRun.printJSON(StatusJSON(healthy: healthy, awayNodes: awayNodes, missingServices: missingServices, nodes: nodes, exchangeRates: exchangeRates))
            if !healthy { throw ExitCode(Self.degradedExitStatus) }
            return
        }
        var table = TextTable("NODE", "PID", "ROLE", "STATE", "UPTIME", "VERSION", "LOAD", "SERVICES")
        for node in status.nodes {
            table.add(
                node.nodeName, String(node.pid), node.isHub ? "hub" : node.overNats ? "nats" : "spoke",
                node.connected ? "up" : "away (\(node.pendingDurableEvents) events waiting)",
                node.connected ? Self.uptime(seconds: (now - node.startedAtUnixMs) / 1000) : "-",
                node.softwareVersion, loads[node.nodeName].map(Self.loadText) ?? "-",
                node.services.filter { !$0.hasPrefix("admin") }.joined(separator: ",")
            )
        }
        print(table.rendered)
        if let rates, let warning = Self.ratesWarning(rates) { print(warning) }
        if !healthy {
            var parts: [String] = []
            if !awayNodes.isEmpty { parts.append("away: \(awayNodes.joined(separator: ", "))") }
            if !missingServices.isEmpty { parts.append("no connected node for: \(missingServices.joined(separator: ", "))") }
            print("DEGRADED (exit \(Self.degradedExitStatus)): " + parts.joined(separator: "; "))
            throw ExitCode(Self.degradedExitStatus)
        }
    }

    /// A line when search's exchange rates are stale (more than 4 business days old), saying why; nil when fresh.
    static func ratesWarning(_ rates: ExchangeRatesResponse) -> String? {
        guard rates.stale else { return nil }
        let why = !rates.lastError.isEmpty ? "the last fetch failed: \(rates.lastError)"
            : rates.fetching ? "no newer rates fetched yet" : "no search.exchangeRates.url is set, so these are the shipped snapshot's"
        return "warning: exchange rates of \(rates.date) are \(rates.businessDaysOld) business days old (stale past 4); \(why). Prices converted with them say so (farelensctl rates)."
    }

    /// "3 in flight, 120 queued".
    static func loadText(_ load: NodeLoadResponse) -> String {
        "\(load.inFlight.values.reduce(0, +)) in flight, \(load.queuedEvents.values.reduce(0, +)) queued"
    }

    static func uptime(seconds: Int64) -> String {
        let s = max(0, seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60)s" }
        if s < 86_400 { return "\(s / 3600)h\(s % 3600 / 60)m" }
        return "\(s / 86_400)d\(s % 86_400 / 3600)h"
    }
}

/// `status --json`: the verdict first, then every node.
struct StatusJSON: Encodable {
    /// False when a node is away or a service has no connected node (exit status 3).
    let healthy: Bool
    let awayNodes: [String]
    let missingServices: [String]
    let nodes: [NodeJSON]
    /// Search's exchange rates; nil when no connected node hosts search (or it did not answer).
    let exchangeRates: RatesJSON?
}

/// `status --json`'s `exchangeRates`: stale rates are a warning, never unhealthy.
struct RatesJSON: Encodable {
    let date: String
    let businessDaysOld: Int
    let stale: Bool
    let source: String
    let lastError: String?
}

struct NodeJSON: Encodable {
    let node: String
    let pid: UInt32
    let role: String
    let connected: Bool
    let services: [String]
    let uptimeSeconds: Int64?
    let version: String
    let pendingDurableEvents: UInt64
    /// Service address → requests in flight; nil for a node that did not say.
    let inFlight: [String: Int]?
    /// Topic → events waiting in subscriber queues; nil for a node that did not say.
    let queuedEvents: [String: Int]?
}
