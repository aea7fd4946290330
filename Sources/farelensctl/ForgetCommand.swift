import ArgumentParser
import FareLensMessages

/// `farelensctl forget NODE`: drop a node that is away for good.
struct ForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a node that is away and will not return; the durable events kept for it are dropped.",
        discussion: "The hub remembers every node across restarts so that durable events wait for it. Use this after renaming a node or moving its services, or publishers on its topics eventually wait for it.\n\nExample: farelensctl forget spoke-old"
    )

    @Argument(help: "The node's name, as `farelensctl status` shows it.") var node: String
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        var request = ForgetNodeRequest()
        request.nodeName = node
        let response = try await CtlRun.request(options, request)
        if options.json {
            try CtlRun.printJSON(["node": node, "dropped_durable_events": String(response.droppedDurableEvents)])
        } else {
            print("forgot \(node): \(response.droppedDurableEvents) durable events dropped")
        }
    }
}
