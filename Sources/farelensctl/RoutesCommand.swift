import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl routes forecast|track-record`: what FareLens can say about
/// one route — buy or wait (scoring) and its alerts' track record (analytics).
struct RoutesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes",
        abstract: "One route: buy or wait with its measured accuracy (scoring), and its alerts' track record (analytics).",
        subcommands: [ForecastCommand.self, TrackRecord.self]
    )

    /// `routes track-record ORIGIN DESTINATION`: alerts sent and those the re-check stopped.
    struct TrackRecord: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "track-record",
            abstract: "A route's alerts over 7, 30 and 90 days: how many were sent, and how many the re-check just before sending stopped (phantom fares).",
            discussion: """
                Example: farelensctl routes track-record LON BCN
                         farelensctl routes track-record --all     (every route together)

                Under 20 alerts in a window it says so and makes no claim. --json prints the analytics service's RouteTrackRecordResponse.
                """
        )

        @Argument(help: "Origin IATA code as the alerts name it, e.g. LON.") var origin: String?
        @Argument(help: "Destination IATA code, e.g. BCN.") var destination: String?
        @Flag(name: .long, help: "Every route together, instead of one.") var all = false
        @OptionGroup var options: ConnectionOptions

        func validate() throws { _ = try makeRequest() }

        func run() async throws {
            let response = try await CtlRun.request(options, try makeRequest())
            if options.json {
                try CtlRun.printJSON(message: response)
            } else {
                print(Self.text(response))
            }
        }

        func makeRequest() throws -> RouteTrackRecordRequest {
            var request = RouteTrackRecordRequest()
            switch (origin, destination, all) {
            case (nil, nil, true): break
            case (let origin?, let destination?, false):
                request.origin = try ScoringArguments.airport(origin, "ORIGIN")
                request.destination = try ScoringArguments.airport(destination, "DESTINATION")
            case (_, _, true): throw ValidationError("--all takes no ORIGIN or DESTINATION")
            default: throw ValidationError("give ORIGIN and DESTINATION (e.g. LON BCN), or --all for every route")
            }
            return request
        }

        /// A table of the three windows, then each window's sentence.
        static func text(_ response: RouteTrackRecordResponse) -> String {
            let route = response.origin.isEmpty ? "every route" : ScoringOutput.route(response.origin, response.destination)
            var table = TextTable("DAYS", "SENT", "CONFIRMED BY RE-CHECK", "STOPPED BY RE-CHECK", "PHANTOM SHARE STOPPED", "CLICKS", "FARE STILL THERE", "FARE RISEN")
            for window in response.windows {
                let share = window.alertsSent + window.stoppedByRecheck == 0 ? "-" : String(format: "%.0f%%", window.phantomShareStopped * 100)
                table.add(
                    String(window.days), String(window.alertsSent), String(window.confirmedByRecheck), String(window.stoppedByRecheck), share,
                    String(window.clicks), String(window.clicksFareStillThere), String(window.clicksFareRisen))
            }
            return (["Track record, \(route)", table.rendered] + response.windows.map { "  - \($0.summary)" }).joined(separator: "\n")
        }
    }
}
