import ArgumentParser

/// `farelensctl`: the admin CLI. Connects to a node's Unix socket as an admin
/// peer and sends bus requests like any other node would.
@main
struct FareLensCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farelensctl",
        abstract: "Administer a FareLens mesh over its Unix socket.",
        discussion: "Human tables by default, --json for scripts. On failure: one line on stderr and exit status 1.",
        subcommands: [StatusCommand.self, ServicesCommand.self, AirportsCommand.self, SearchCommand.self, UsersCommand.self, WatchlistsCommand.self, ForgetCommand.self, EventsCommand.self, DealsCommand.self, HistoryCommand.self, ScoreCommand.self, AlertsCommand.self, AnalyticsCommand.self]
    )
}
