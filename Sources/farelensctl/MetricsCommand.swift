import ArgumentParser
import FareLensMessages

/// `farelensctl metrics`: the Prometheus text of one node or all.
struct MetricsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the Prometheus metrics of every node (or one), as its /metrics endpoint serves them.",
        discussion: """
            Each node answers at its own admin address; with several nodes each text starts with a \
            '# node: NAME' line. --json prints {"nodes": [{"node": NAME, "text": TEXT}]}.

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
        for entry in texts {
            if texts.count > 1 { print("# node: \(entry.node)") }
            print(entry.text, terminator: entry.text.hasSuffix("\n") ? "" : "\n")
        }
    }
}

struct NodeMetricsJSON: Encodable, Sendable {
    let node: String
    let text: String
}
