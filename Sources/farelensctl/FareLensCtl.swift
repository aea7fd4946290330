import ArgumentParser
import FareLensBus
import FareLensWire

/// `farelensctl`: the admin CLI. Connects to a node's Unix socket as an admin
/// peer and sends bus requests like any other node would.
@main
struct FareLensCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "farelensctl",
        abstract: "Administer a FareLens mesh over its Unix socket.",
        discussion: """
            Human tables by default, --json for scripts. On failure: one line on stderr and exit status 1; \
            a usage error (a bad option or value, refused before connecting) exits 64.
            The global options --socket PATH, --timeout-ms N and --json may come before or after the \
            subcommand; the socket defaults to $FARELENS_SOCKET, then $FARELENS_BRIDGE_SOCKET, then ./data/farelens.sock.

            Example: farelensctl --socket /tmp/farelens.sock status
            Completion: farelensctl --generate-completion-script bash|zsh|fish
            """,
        subcommands: [StatusCommand.self, ServicesCommand.self, AirportsCommand.self, SearchCommand.self, UsersCommand.self, WatchlistsCommand.self, ForgetCommand.self, EventsCommand.self, DealsCommand.self, HistoryCommand.self, RoutesCommand.self, ScoreCommand.self, AlertsCommand.self, AnalyticsCommand.self, AppStoreCommand.self, RatesCommand.self, MetricsCommand.self, BackupCommand.self, LogLevelCommand.self, ClockCommand.self]
    )

    /// Runs the command line with the global options written before the
    /// subcommand moved to where the subcommand reads them.
    /// Refuses a negative value first (``NegativeArguments``), and a word
    /// that names no subcommand of its group (``UnknownSubcommands``).
    ///
    /// A reader that goes away (`| head`) ends a command quietly
    /// (``CtlRun/emit(_:)``), not with `SIGPIPE`. With `--json` a usage error
    /// is one JSON object on stdout too (``CtlFailure``).
    static func main() async {
        StandardStreams.ignoreBrokenPipeSignal()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let refusal = NegativeArguments.refusal(in: arguments) { CtlRun.fail(.usage(refusal)) }
        if let refusal = UnknownSubcommands.refusal(in: arguments) { CtlRun.fail(.usage(refusal)) }
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(GlobalOptions.hoisted(arguments))
        } catch {
            let status = exitCode(for: error)
            // Help, --version and completion scripts are ArgumentParser's to print, as are usage errors without --json.
            guard CtlRun.jsonRequested, status != .success else { exit(withError: error) }
            CtlRun.fail(.usage(message(for: error), exitStatus: status.rawValue))
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let status as ExitCode {
            // A command's own exit status (its output already said why).
            exit(withError: status)
        } catch {
            // Help asked for by a subcommand, and (without --json) ArgumentParser's own errors, are its to print.
            let argumentParserOwns = !(error is CtlFailure || error is BusError || error is WireProtocolError)
            if argumentParserOwns && (exitCode(for: error) == .success || !CtlRun.jsonRequested) { exit(withError: error) }
            CtlRun.fail(CtlFailure(error))
        }
    }
}
