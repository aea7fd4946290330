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

            Example: farelensctl status --socket /run/farelens/hub.sock --json
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let (status, loads) = try await CtlRun.session(options) { session in
            let status = try await session.request(MeshStatusRequest())
            var loads: [String: NodeLoadResponse] = [:]
            // A node that cannot say (busy past the budget, or older) shows "-".
            for node in status.nodes where node.connected {
                loads[node.nodeName] = try? await session.request(NodeLoadRequest(), node: node.nodeName)
            }
            return (status, loads)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if options.json {
            let nodes = status.nodes.map { node in
                NodeJSON(
                    node: node.nodeName, pid: node.pid, role: node.isHub ? "hub" : "spoke",
                    connected: node.connected, services: node.services.filter { !$0.hasPrefix("admin") },
                    uptimeSeconds: node.connected ? max(0, (now - node.startedAtUnixMs) / 1000) : nil,
                    version: node.softwareVersion, pendingDurableEvents: node.pendingDurableEvents,
                    inFlight: loads[node.nodeName].map { $0.inFlight.mapValues(Int.init) },
                    queuedEvents: loads[node.nodeName].map { $0.queuedEvents.mapValues(Int.init) }
                )
            }
            try CtlRun.printJSON(["nodes": nodes])
            return
        }
        var table = TextTable("NODE", "PID", "ROLE", "STATE", "UPTIME", "VERSION", "LOAD", "SERVICES")
        for node in status.nodes {
            table.add(
                node.nodeName, String(node.pid), node.isHub ? "hub" : "spoke",
                node.connected ? "up" : "away (\(node.pendingDurableEvents) events waiting)",
                node.connected ? Self.uptime(seconds: (now - node.startedAtUnixMs) / 1000) : "-",
                node.softwareVersion, loads[node.nodeName].map(Self.loadText) ?? "-",
                node.services.filter { !$0.hasPrefix("admin") }.joined(separator: ",")
            )
        }
        print(table.rendered)
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
