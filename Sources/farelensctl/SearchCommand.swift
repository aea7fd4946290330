import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl search ORIGIN DESTINATION DATE …`: one flight search, as a traveller would make it.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search flights. Prices are totals for all travellers in integer minor units; simulated offers say so.",
        discussion: "Example: farelensctl search LIS NYC 2026-12-10 --return 2026-12-17 --adults 2 --cabin business --nonstop --flex"
    )

    @Argument(help: "Origin IATA airport or metro code, e.g. LIS or LON.") var origin: String
    @Argument(help: "Destination IATA airport or metro code.") var destination: String
    @Argument(help: "Departure date, YYYY-MM-DD.") var date: String
    @Option(name: .customLong("return"), help: "Return date, YYYY-MM-DD (round trip).") var returnDate: String?
    @Option(name: .long, help: "Adults, 1–9.") var adults: Int = 1
    @Option(name: .long, help: "Children, 0–5.") var children: Int = 0
    @Option(name: .long, help: "Infants, 0–2, never more than adults.") var infants: Int = 0
    @Option(name: .long, help: "economy, premium-economy, business or first.") var cabin: String = "economy"
    @Flag(name: .long, help: "Nonstop flights only.") var nonstop = false
    @Flag(name: .long, help: "Flexible dates: also search ±3 days around each date.") var flex = false
    @Option(name: .long, help: "Flexible window in days, 0–3 (overrides --flex).") var flexDays: Int?
    @Option(name: .long, parsing: .unconditional, help: "Drop offers above this total, e.g. 250.00EUR.") var maxPrice: String?
    @Option(name: .long, help: "Show at most this many offers in the table.") var limit: Int = 20
    @OptionGroup var options: ConnectionOptions

    /// Bad input is refused before connecting, as by every other command.
    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1, not \(limit)") }
        _ = try makeRequest()
    }

    func run() async throws {
        let request = try makeRequest()
        let response = try await CtlRun.request(options, request)
        let offers = response.offers.map(OfferRow.init)
        if options.json {
            try CtlRun.printJSON(SearchJSON(offers: offers, stale: response.stale, staleReason: response.staleReason, fromCache: response.fromCache, providers: response.providers, observedAtUnixMs: response.observedAtUnixMs))
            return
        }
        if response.stale { print("⚠ \(response.staleReason)") }
        if response.offers.contains(where: \.simulated) { print("SIMULATED fares (not real prices): the embedded simulated market answered.") }
        print(Self.table(offers.prefix(limit)).rendered)
        print("\(response.offers.count) offers\(response.fromCache ? ", from cache" : "") · providers: \(response.providers.joined(separator: ", "))")
    }

    /// The offers as a table; when any is a round trip, the return leg's
    /// departure, arrival, duration and stops too (they were left out).
    static func table(_ offers: some Collection<OfferRow>) -> TextTable {
        let roundTrip = offers.contains(where: \.roundTrip)
        var table = roundTrip
            ? TextTable("PRICE", "CARRIER", "FLIGHTS", "DEPART", "ARRIVE", "DURATION", "STOPS",
                        "RETURN DEPART", "RETURN ARRIVE", "RETURN DURATION", "RETURN STOPS", "PROVIDER", "OFFER")
            : TextTable("PRICE", "CARRIER", "FLIGHTS", "DEPART", "ARRIVE", "DURATION", "STOPS", "PROVIDER", "OFFER")
        for offer in offers {
            let outbound = [offer.departLocal, offer.arriveLocal, duration(offer.durationMinutes), String(offer.stops)]
            let inbound = !roundTrip ? [] : [
                offer.returnDepartLocal ?? "-", offer.returnArriveLocal ?? "-",
                offer.returnDurationMinutes.map(duration) ?? "-", offer.returnStops.map { String($0) } ?? "-",
            ]
            let cells = [offer.priceText, offer.carrier, offer.flightNumbers.joined(separator: " ")] + outbound + inbound
                + [offer.provider + (offer.simulated ? " (simulated)" : ""), offer.offerID]
            table.rows.append(cells.map(TextTable.visible))
        }
        return table
    }

    /// "2h05".
    static func duration(_ minutes: Int) -> String { "\(minutes / 60)h\(String(format: "%02d", minutes % 60))" }

    func makeRequest() throws -> SearchFlightsRequest {
        var request = SearchFlightsRequest()
        request.origin = origin
        request.destination = destination
        request.departureDate = try Self.date(date, "DATE")
        if let returnDate { request.returnDate = try Self.date(returnDate, "--return") }
        request.adults = Int32(clamping: adults)
        request.children = Int32(clamping: children)
        request.infants = Int32(clamping: infants)
        request.cabin = try Self.cabin(cabin)
        request.nonstopOnly = nonstop
        request.flexibleDays = Int32(clamping: flexDays ?? (flex ? 3 : 0))
        if let maxPrice { request.maxPrice = try ScoringArguments.money(maxPrice, "--max-price", example: "250.00EUR") }
        request.purpose = .userSearch
        request.userID = "farelensctl"
        return request
    }

    static func date(_ text: String, _ name: String) throws -> LocalDate {
        let parts = text.split(separator: "-").compactMap { Int32($0) }
        guard parts.count == 3, text.count == 10 else { throw ValidationError("\(name) must be a date as YYYY-MM-DD, not '\(text)'") }
        var date = LocalDate()
        (date.year, date.month, date.day) = (parts[0], parts[1], parts[2])
        return date
    }

    static func cabin(_ text: String) throws -> Cabin {
        switch text.lowercased() {
        case "economy": .economy
        case "premium-economy", "premium_economy", "premium": .premiumEconomy
        case "business": .business
        case "first": .first
        default: throw ValidationError("--cabin must be economy, premium-economy, business or first, not '\(text)'")
        }
    }
}

struct SearchJSON: Encodable {
    let offers: [OfferRow]
    let stale: Bool
    let staleReason: String
    let fromCache: Bool
    let providers: [String]
    let observedAtUnixMs: Int64
}

struct OfferRow: Encodable {
    let offerID: String
    let carrier: String
    let flightNumbers: [String]
    let departLocal: String
    let arriveLocal: String
    let durationMinutes: Int
    let stops: Int
    let totalMinorUnits: Int64
    let currency: String
    let provider: String
    let simulated: Bool
    let bookingLink: String
    let roundTrip: Bool
    /// The return leg's (round trips only; left out of the JSON otherwise).
    let returnDepartLocal: String?
    let returnArriveLocal: String?
    let returnDurationMinutes: Int?
    let returnStops: Int?

    init(_ offer: FlightOffer) {
        offerID = offer.offerID
        carrier = offer.carrier
        flightNumbers = offer.flightNumbers
        departLocal = offer.outbound.segments.first?.departureLocal ?? ""
        arriveLocal = offer.outbound.segments.last?.arrivalLocal ?? ""
        durationMinutes = Int(offer.outbound.durationMinutes)
        stops = Int(offer.outbound.stops)
        totalMinorUnits = offer.price.minorUnits
        currency = offer.price.currency
        provider = offer.provider
        simulated = offer.simulated
        bookingLink = offer.bookingLink
        roundTrip = offer.hasInbound
        let inbound = offer.hasInbound ? offer.inbound : nil
        returnDepartLocal = inbound?.segments.first?.departureLocal
        returnArriveLocal = inbound?.segments.last?.arrivalLocal
        returnDurationMinutes = inbound.map { Int($0.durationMinutes) }
        returnStops = inbound.map { Int($0.stops) }
    }

    /// By the currency's own minor units (`Money.formatted`): "€123.45", "¥65,000", "12.345 KWD".
    var priceText: String { Money(minorUnits: totalMinorUnits, currency: currency).formatted }
}
