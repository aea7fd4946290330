import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl routes forecast ORIGIN DESTINATION --month YYYY-MM`: buy or wait
/// for a route and departure month, with the forecasts' measured accuracy
/// (the scoring service; docs/forecast.md).
struct ForecastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecast",
        abstract: "Buy or wait: whether a route's lowest fare is likely to rise or fall over the next 7 days, and how often such forecasts were right.",
        discussion: """
            Example: farelensctl routes forecast LIS LON --month 2027-01 --cabin economy

            A forecast that has not beaten always saying "likely to rise" on this node's own history is withheld and shown as no clear signal.
            --json prints the scoring service's FareForecastResponse.
            """
    )

    @OptionGroup var route: RouteMonthArguments
    @OptionGroup var options: ConnectionOptions

    func validate() throws { _ = try makeRequest() }

    func run() async throws {
        let request = try makeRequest()
        let response = try await CtlRun.request(options, request)
        if options.json {
            try CtlRun.printJSON(message: response)
        } else {
            print(Self.text(request, response))
        }
    }

    func makeRequest() throws -> FareForecastRequest {
        var request = FareForecastRequest()
        (request.origin, request.destination, request.cabin, request.departureYear, request.departureMonth) = try route.parsed()
        return request
    }

    /// The route, the outlook on one line, the reasons one per line, then
    /// the measured figures per confidence band.
    static func text(_ request: FareForecastRequest, _ response: FareForecastResponse) -> String {
        let month = String(format: "%04d-%02d", request.departureYear, request.departureMonth)
        var lines = ["\(ScoringOutput.route(request.origin, request.destination)) \(WatchlistOutput.cabinName(request.cabin)), departing \(month)"
            + (response.simulated ? " (simulated fares)" : "")]
        if response.enoughData {
            var outlook = outlookText(response.outlook)
            if response.confidence != .unspecified { outlook += " (\(response.confidence == .high ? "high" : "medium") confidence)" }
            if response.withheld { outlook += ": the model said \(response.modelOutlook.words), withheld" }
            lines.append(outlook + " · next \(response.horizonDays) days from \(WatchlistOutput.dateText(response.madeOn))")
        } else {
            lines.append("No forecast today")
        }
        lines += response.reasons.map { "  - \($0)" }
        let bands = [("medium", response.accuracyMedium), ("high", response.accuracyHigh)].map { name, accuracy in
            accuracy.forecasts == 0 ? "\(name): none scored" : "\(name): \(accuracy.hits) of \(accuracy.forecasts) right, always-rise \(accuracy.baselineHits)"
        }
        lines.append("Measured on all routes over \(response.windowDays) days through \(WatchlistOutput.dateText(response.measuredThrough)): "
            + bands.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    /// "Likely to rise", capitalised to start a line.
    static func outlookText(_ outlook: FareOutlook) -> String {
        outlook.words.prefix(1).uppercased() + outlook.words.dropFirst()
    }
}
