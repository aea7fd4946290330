import ArgumentParser
import FareLensMessages

/// `farelensctl airports QUERY`: autocomplete over the airport directory.
struct AirportsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airports",
        abstract: "Suggest airports and metro codes for what a traveller typed (IATA code, city or airport name).",
        discussion: "Example: farelensctl airports heathrow --limit 5"
    )

    @Argument(help: "What to look for, e.g. LHR, lond, heathrow. Empty lists popular airports.")
    var query: String = ""

    @Option(name: .long, help: "Most suggestions to show (1–50).")
    var limit: Int = 10

    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        guard (1 ... 50).contains(limit) else { throw ValidationError("--limit must be between 1 and 50") }
    }

    func run() async throws {
        var request = AirportAutocompleteRequest()
        request.query = query
        request.limit = Int32(limit)
        let response = try await CtlRun.request(options, request)
        let rows = response.suggestions.map(AirportRow.init)
        if options.json {
            try CtlRun.printJSON(["suggestions": rows])
            return
        }
        if let nothing = Self.noMatch(query: query, rows) {
            print(nothing)
            return
        }
        var table = TextTable("CODE", "KIND", "NAME", "CITY", "COUNTRY", "TIME ZONE", "MATCH")
        for row in rows { table.add(row.code, row.kind, row.name, row.city, row.country, row.timeZone, row.match + (row.distanceMiles.map { " (\(Int($0.rounded())) mi)" } ?? "")) }
        print(table.rendered)
    }
}

extension AirportsCommand {
    /// What to say instead of an empty table: nil when there are suggestions.
    static func noMatch(query: String, _ rows: [AirportRow]) -> String? {
        guard rows.isEmpty else { return nil }
        return query.isEmpty ? "no airports" : "no airport matches '\(TextTable.visible(query))'"
    }
}

struct AirportRow: Encodable {
    let code: String
    let kind: String
    let name: String
    let city: String
    let country: String
    let timeZone: String
    let match: String
    let distanceMiles: Double?
    let airports: [String]?

    init(_ suggestion: AirportSuggestion) {
        switch suggestion.place {
        case .metro(let metro)?:
            code = metro.code; kind = "metro"; name = "All airports"; city = metro.city; country = metro.country
            timeZone = metro.airports.first?.timeZone ?? ""; airports = metro.airports.map(\.iataCode)
        case .airport(let airport)?:
            code = airport.iataCode; kind = "airport"; name = airport.name; city = airport.city; country = airport.country
            timeZone = airport.timeZone; airports = nil
        case nil:
            code = ""; kind = ""; name = ""; city = ""; country = ""; timeZone = ""; airports = nil
        }
        match = switch suggestion.match {
        case .iataCode: "iata-code"
        case .cityPrefix: "city-prefix"
        case .airportName: "airport-name"
        case .nearby: "nearby"
        case .popular: "popular"
        default: "unknown"
        }
        distanceMiles = suggestion.match == .nearby ? suggestion.distanceMiles : nil
    }
}
