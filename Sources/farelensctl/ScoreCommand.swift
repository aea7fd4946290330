import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl score ORIGIN DESTINATION DATE PRICE`: one fare's DealScore and why (the scoring service).
struct ScoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "score",
        abstract: "Score one fare against its route's history: DealScore, tier, hot deal, reasons and each factor's points.",
        discussion: "Example: farelensctl score LIS LON 2027-01-10 20.00EUR --return 2027-01-17 --carrier TP"
    )

    @Argument(help: "Origin IATA airport code, e.g. LIS.") var origin: String
    @Argument(help: "Destination IATA airport code, e.g. LON.") var destination: String
    @Argument(help: "Departure date, YYYY-MM-DD.") var date: String
    @Argument(help: "Per-person price with its currency, e.g. 20.00EUR or 65000JPY.") var price: String
    @Option(name: .customLong("return"), help: "Return date, YYYY-MM-DD (round trip).") var returnDate: String?
    @Option(name: .long, help: "economy, premium-economy, business or first.") var cabin: String = "economy"
    @Option(name: .long, help: "The 2-character airline code, e.g. BA; without it the carrier counts as unknown (neutral).") var carrier: String?
    @OptionGroup var options: ConnectionOptions

    func validate() throws { _ = try makeRequest() }

    func run() async throws {
        let request = try makeRequest()
        let response = try await CtlRun.request(options, request)
        if options.json {
            try CtlRun.printJSON(ScoreJSON(request, response))
        } else {
            print(Self.text(request, response))
        }
    }

    func makeRequest() throws -> ScoreFareRequest {
        var request = ScoreFareRequest()
        request.origin = try ScoringArguments.airport(origin, "ORIGIN")
        request.destination = try ScoringArguments.airport(destination, "DESTINATION")
        request.departureDate = try WatchlistArguments.date(date, "DATE")
        if let returnDate {
            request.returnDate = try WatchlistArguments.date(returnDate, "--return")
            guard let out = CalendarDate(request.departureDate), let back = CalendarDate(request.returnDate), out <= back else {
                throw ValidationError("--return must not be before DATE (\(date)), not '\(returnDate)'")
            }
        }
        request.cabin = try SearchCommand.cabin(cabin)
        request.price = try ScoringArguments.money(price, "PRICE", example: "20.00EUR")
        if let carrier { request.carrier = try ScoringArguments.carrier(carrier) }
        return request
    }

    /// Score, tier and hot deal on one line, the reasons one per line, then the components table;
    /// for too little history only the sentence saying so.
    static func text(_ request: ScoreFareRequest, _ response: ScoreFareResponse) -> String {
        let route = ScoringOutput.route(request.origin, request.destination)
        let score = response.score
        guard score.tier != .notEnoughData else { return "Not enough data yet for \(route): no score is given" }
        let fare = "\(route) \(WatchlistOutput.dateText(request.departureDate))"
            + (request.hasReturnDate ? " → \(WatchlistOutput.dateText(request.returnDate))" : "") + " at \(request.price.formatted)"
        var lines = ["\(fare): score \(score.score) · \(ScoringOutput.tierText(score.tier)) · \(score.hotDeal ? "HOT DEAL" : "not a hot deal")"]
        lines += score.reasons.map { "  - \($0)" }
        if !score.components.isEmpty {
            var table = TextTable("FACTOR", "POINTS", "MAX", "INPUT")
            for component in score.components {
                table.add(ScoringOutput.factorName(component.factor), String(component.points), String(component.maxPoints), ScoringOutput.inputText(component))
            }
            lines += ["", table.rendered]
        }
        return lines.joined(separator: "\n")
    }
}

/// `score --json`: the fare as asked and its full score.
struct ScoreJSON: Encodable {
    let origin: String
    let destination: String
    let departureDate: String
    let returnDate: ScoringOutput.OrNull<String>
    let cabin: String
    let carrier: ScoringOutput.OrNull<String>
    let price: ScoringOutput.MoneyJSON
    let score: ScoringOutput.ScoreJSON

    init(_ request: ScoreFareRequest, _ response: ScoreFareResponse) {
        origin = request.origin
        destination = request.destination
        departureDate = WatchlistOutput.dateText(request.departureDate)
        returnDate = ScoringOutput.OrNull(request.hasReturnDate ? WatchlistOutput.dateText(request.returnDate) : nil)
        cabin = WatchlistOutput.cabinName(request.cabin)
        carrier = ScoringOutput.OrNull(request.carrier.isEmpty ? nil : request.carrier)
        price = ScoringOutput.MoneyJSON(request.price)
        score = ScoringOutput.ScoreJSON(response.score)
    }
}
