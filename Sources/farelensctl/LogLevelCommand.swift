import ArgumentParser
import FareLensMessages

/// `farelensctl log-level LEVEL`: change a running node's log level.
struct LogLevelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log-level",
        abstract: "Change the log level of every node (or one) while it runs, until it restarts.",
        discussion: """
            LEVEL is trace, debug, info, notice, warning, error or critical; anything else is refused by \
            the node with the code invalid-level. --json prints {"nodes": [{"node", "previous_level", "level"}]}.

            Example: farelensctl log-level debug --node spoke-search
            """
    )

    @Argument(help: "trace, debug, info, notice, warning, error or critical.") var level: String
    @Option(name: .long, help: "Only this node (a name `farelensctl status` shows).") var node: String?
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let node = self.node, level = self.level
        let changes = try await CtlRun.session(options) { session in
            var changes: [LogLevelJSON] = []
            for name in try await NodeTargets.resolve(node, in: session) {
                var request = NodeLogLevelRequest()
                request.level = level
                let response = try await session.request(request, node: name)
                changes.append(LogLevelJSON(node: name, previousLevel: response.previousLevel, level: response.level))
            }
            return changes
        }
        if options.json {
            try CtlRun.printJSON(["nodes": changes])
            return
        }
        for change in changes { print("\(change.node): log level \(change.previousLevel) -> \(change.level)") }
    }
}

struct LogLevelJSON: Encodable, Sendable {
    let node: String
    let previousLevel: String
    let level: String
}
