import ArgumentParser
import FareLensRuntime
import FareLensServiceKit

/// `farelens`: the FareLens backend executable.
@main
struct FareLensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farelens",
        abstract: "FareLens backend: six services on a typed message bus.",
        version: FareLensVersion.current,
        subcommands: [ServeCommand.self, ConfigCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
