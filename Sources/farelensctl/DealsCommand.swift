import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl deals --user ID …`: a user's deal feed as the app ranks it (the scoring service).
struct DealsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deals",
        abstract: "Show a user's deal feed, best first, with filters (the scoring service).",
        discussion: """
            Example: farelensctl deals --user u-0f3a9c2b7d1e4a55 --from JFK --under 600.00USD --nonstop --limit 10

            The service looks the user's tier up with the subscription service: Free sees the top 20, trial and Pro all.
            """
    )

    @Option(name: .long, help: "The user whose feed it is (u-…): their preferred airports and watchlists rank it.") var user: String
    @Flag(name: .long, help: "Only routes between two countries.") var international = false
    @Flag(name: .long, help: "Only nonstop flights.") var nonstop = false
    @Option(name: .long, parsing: .unconditional, help: "Only deals at or under this per-person price, e.g. 300.00EUR.") var under: String?
    @Flag(name: .customLong("this-month"), help: "Only departures in the current month (the user's time zone).") var thisMonth = false
    @Option(name: .long, help: "One route, ORIGIN-DESTINATION, e.g. JFK-NRT (not with --from/--to).") var route: String?
    @Option(name: .customLong("from"), help: "Only from this airport or metro code, e.g. JFK.") var origin: String?
    @Option(name: .customLong("to"), help: "Only to this airport or metro code, e.g. NRT.") var destination: String?
    @Option(name: .long, help: "Only this 2-character airline code, e.g. BA.") var carrier: String?
    @Option(name: .long, help: "Show at most this many deals (after the tier's cap).") var limit: Int?
    @OptionGroup var options: ConnectionOptions

    func validate() throws { _ = try makeRequest() }

    func run() async throws {
        let response = try await CtlRun.request(options, try makeRequest())
        if options.json {
            try CtlRun.printJSON(DealsJSON(response))
        } else {
            print(Self.text(response))
        }
    }

    func makeRequest() throws -> DealFeedRequest {
        guard !user.isEmpty else { throw ValidationError("--user must be a user id (u-…)") }
        var request = DealFeedRequest()
        request.userID = user
        var filter = DealFeedFilter()
        filter.internationalOnly = international
        filter.nonstopOnly = nonstop
        if let under { filter.maxPrice = try ScoringArguments.money(under, "--under", example: "300.00EUR") }
        filter.departingThisMonth = thisMonth
        if let route {
            guard origin == nil, destination == nil else { throw ValidationError("--route and --from/--to are alternatives: give one or the other") }
            let parts = route.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--route must be ORIGIN-DESTINATION like JFK-NRT, not '\(route)'") }
            filter.origin = try ScoringArguments.airport(parts[0], "--route")
            filter.destination = try ScoringArguments.airport(parts[1], "--route")
        }
        if let origin { filter.origin = try ScoringArguments.airport(origin, "--from") }
        if let destination { filter.destination = try ScoringArguments.airport(destination, "--to") }
        if let carrier { filter.carrier = try ScoringArguments.carrier(carrier) }
        request.filter = filter
        if let limit {
            guard limit > 0 else { throw ValidationError("--limit must be a positive number of deals, not \(limit)") }
            request.limit = Int32(clamping: limit)
        }
        return request
    }

    /// The table, a simulated-market warning when any deal is simulated, and the "N of TOTAL" footer.
    static func text(_ response: DealFeedResponse) -> String {
        var lines: [String] = []
        if response.items.contains(where: \.deal.simulated) { lines.append("SIMULATED fares (not real prices) are marked: the embedded simulated market answered.") }
        if response.items.isEmpty {
            lines.append("no deals match")
        } else {
            var table = TextTable("RANK", "ROUTE", "DEPART", "PRICE", "SCORE", "TIER", "TOP REASON")
            for (index, deal) in response.items.map(\.deal).enumerated() {
                table.add(String(index + 1), ScoringOutput.route(deal.origin, deal.destination), departText(deal),
                          (deal.hasPrice ? deal.price.formatted : "-") + (deal.simulated ? " (simulated)" : ""),
                          String(deal.score.score), ScoringOutput.tierText(deal.score.tier), deal.score.reasons.first ?? "-")
            }
            lines.append(table.rendered)
        }
        let footer = "\(response.items.count) of \(response.totalMatching) deals"
        lines.append(response.cappedByTier ? footer + " (Free shows the top 20; Pro shows all)" : footer)
        return lines.joined(separator: "\n")
    }

    /// "2027-01-10" one-way, "2027-01-10 → 2027-01-17" round trip.
    static func departText(_ deal: Deal) -> String {
        let departure = deal.hasDepartureDate ? WatchlistOutput.dateText(deal.departureDate) : "-"
        return deal.hasReturnDate ? "\(departure) → \(WatchlistOutput.dateText(deal.returnDate))" : departure
    }
}

/// `deals --json`: every deal in full, with its score's components.
struct DealsJSON: Encodable {
    let deals: [DealJSON]
    let shown: Int
    let totalMatching: Int32
    let cappedByTier: Bool

    init(_ response: DealFeedResponse) {
        deals = response.items.enumerated().map { DealJSON($1, rank: $0 + 1) }
        shown = response.items.count
        totalMatching = response.totalMatching
        cappedByTier = response.cappedByTier
    }
}

struct DealJSON: Encodable {
    let rank: Int
    let dealId: String
    let origin: String
    let destination: String
    let originCountry: String
    let destinationCountry: String
    let departureDate: ScoringOutput.OrNull<String>
    let returnDate: ScoringOutput.OrNull<String>
    let cabin: String
    let carrier: String
    let stops: Int32
    let durationMinutes: Int32
    let price: ScoringOutput.OrNull<ScoringOutput.MoneyJSON>
    let provider: String
    let simulated: Bool
    let offerId: String
    let observedAt: ScoringOutput.OrNull<String>
    let expiresAt: ScoringOutput.OrNull<String>
    let score: ScoringOutput.OrNull<ScoringOutput.ScoreJSON>
    let queueScore: Double
    let matchedWatchlistId: ScoringOutput.OrNull<String>
    let preferredAirportWeight: Double

    init(_ item: FeedItem, rank: Int) {
        let deal = item.deal
        self.rank = rank
        dealId = deal.dealID
        origin = deal.origin
        destination = deal.destination
        originCountry = deal.originCountry
        destinationCountry = deal.destinationCountry
        departureDate = ScoringOutput.OrNull(deal.hasDepartureDate ? WatchlistOutput.dateText(deal.departureDate) : nil)
        returnDate = ScoringOutput.OrNull(deal.hasReturnDate ? WatchlistOutput.dateText(deal.returnDate) : nil)
        cabin = WatchlistOutput.cabinName(deal.cabin)
        carrier = deal.carrier
        stops = deal.stops
        durationMinutes = deal.durationMinutes
        price = ScoringOutput.MoneyJSON.of(deal.price, if: deal.hasPrice)
        provider = deal.provider
        simulated = deal.simulated
        offerId = deal.offerID
        observedAt = ScoringOutput.OrNull(ScoringOutput.instant(deal.observedAtUnixMs))
        expiresAt = ScoringOutput.OrNull(ScoringOutput.instant(deal.expiresAtUnixMs))
        score = ScoringOutput.OrNull(deal.hasScore ? ScoringOutput.ScoreJSON(deal.score) : nil)
        queueScore = item.queueScore
        matchedWatchlistId = ScoringOutput.OrNull(item.matchedWatchlistID.isEmpty ? nil : item.matchedWatchlistID)
        preferredAirportWeight = item.preferredAirportWeight
    }
}
