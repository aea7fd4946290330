import ArgumentParser
import FareLensBus
import FareLensMessages
import Foundation

/// `farelensctl status`: every process in the mesh.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List every process in the mesh: pid, node name, services, uptime, version.",
        discussion: "Example: farelensctl status --socket /run/farelens/hub.sock --json"
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let status = try await CtlRun.request(options, MeshStatusRequest())
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if options.json {
            let nodes = status.nodes.map { node in
                NodeJSON(
                    node: node.nodeName, pid: node.pid, role: node.isHub ? "hub" : "spoke",
                    connected: node.connected, services: node.services.filter { !$0.hasPrefix("admin") },
                    uptimeSeconds: node.connected ? max(0, (now - node.startedAtUnixMs) / 1000) : nil,
                    version: node.softwareVersion, pendingDurableEvents: node.pendingDurableEvents
                )
            }
            try CtlRun.printJSON(["nodes": nodes])
            return
        }
        var table = TextTable("NODE", "PID", "ROLE", "STATE", "UPTIME", "VERSION", "SERVICES")
        for node in status.nodes {
            table.add(
                node.nodeName, String(node.pid), node.isHub ? "hub" : "spoke",
                node.connected ? "up" : "away (\(node.pendingDurableEvents) events waiting)",
                node.connected ? Self.uptime(seconds: (now - node.startedAtUnixMs) / 1000) : "-",
                node.softwareVersion, node.services.filter { !$0.hasPrefix("admin") }.joined(separator: ",")
            )
        }
        print(table.rendered)
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
}
