import ArgumentParser
import FareLensBus
import FareLensMessages
import Foundation

/// `farelensctl services`: which process hosts each service.
struct ServicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "services",
        abstract: "List every service in the mesh and the process that hosts it.",
        discussion: "Example: farelensctl services --json"
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let status = try await CtlRun.request(options, MeshStatusRequest())
        let rows = status.nodes.flatMap { node in
            node.services.filter { !$0.hasPrefix("admin") }.map { ServiceJSON(service: $0, node: node.nodeName, pid: node.pid, reachable: node.connected) }
        }.sorted { ($0.service, $0.node) < ($1.service, $1.node) }
        if options.json {
            try CtlRun.printJSON(["services": rows])
            return
        }
        var table = TextTable("SERVICE", "NODE", "PID", "STATE")
        for row in rows { table.add(row.service, row.node, String(row.pid), row.reachable ? "reachable" : "unreachable") }
        print(table.rendered)
    }
}

struct ServiceJSON: Encodable {
    let service: String
    let node: String
    let pid: UInt32
    let reachable: Bool
}
