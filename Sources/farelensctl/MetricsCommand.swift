import ArgumentParser
import FareLensMessages
import FareLensWire
import Foundation

/// `farelensctl metrics`: the Prometheus text of one node or all.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the Prometheus metrics of every node (or one) as one exposition, each sample labelled with its node.",
        discussion: """
            Each node answers at its own admin address. The texts are merged into one valid \
            Prometheus exposition: one # HELP and one # TYPE line per metric name, and every \
            sample with a node="NAME" label. --json prints each node's own text, as its \
            /metrics endpoint serves it: {"nodes": [{"node": NAME, "text": TEXT}]}.

            Example: farelensctl metrics --node hub | grep farelens_bus_requests_total
            """
    )

    @Option(name: .long, help: "Only this node (a name `farelensctl status` shows).") var node: String?
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let node = self.node
        let texts = try await CtlRun.session(options) { session in
            var texts: [NodeMetricsJSON] = []
            for name in try await NodeTargets.resolve(node, in: session) {
                let response = try await session.request(NodeMetricsRequest(), node: name)
                texts.append(NodeMetricsJSON(node: name, text: response.text))
            }
            return texts
        }
        if options.json {
            try CtlRun.printJSON(["nodes": texts])
            return
        }
        var merge = MetricsMerge()
        for entry in texts { merge.add(entry.text, node: entry.node) }
        for conflict in merge.conflicts { try? StandardStreams.writeError("farelensctl: warning: \(conflict)\n") }
        print(merge.text, terminator: "")
    }
}

struct NodeMetricsJSON: Encodable, Sendable {
    let node: String
    let text: String
}
