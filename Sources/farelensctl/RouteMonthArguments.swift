import ArgumentParser
import FareLensMessages

/// `ORIGIN DESTINATION --month YYYY-MM [--cabin …]`: the route, departure
/// month and cabin that `history` and `forecast` ask the scoring service about.
struct RouteMonthArguments: ParsableArguments {
    @Argument(help: "Origin IATA airport code, e.g. LIS.") var origin: String
    @Argument(help: "Destination IATA airport code, e.g. LON.") var destination: String
    @Option(name: .long, help: "The departure month, YYYY-MM (year 2000–2100).") var month: String
    @Option(name: .long, help: "economy, premium-economy, business or first.") var cabin: String = "economy"

    /// The words as message fields; a ValidationError naming the word otherwise.
    func parsed() throws -> (origin: String, destination: String, cabin: Cabin, year: Int32, month: Int32) {
        let (year, number) = try ScoringArguments.month(month)
        return (try ScoringArguments.airport(origin, "ORIGIN"), try ScoringArguments.airport(destination, "DESTINATION"), try SearchCommand.cabin(cabin), year, number)
    }
}
