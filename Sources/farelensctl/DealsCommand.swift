import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl deals --user ID …`: a user's deal feed as the app shows it (the scoring service), a page at a time.
struct DealsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deals",
        abstract: "Show a user's deal feed as the app shows it: their deals, in queue order, a page at a time.",
        discussion: """
            The feed holds the traveller's deals: those departing from one of their preferred airports (or an \
            airport of its metro) and those on their watched routes; a user with neither sees every deal. \
            The order is the smart queue (SPEC §2): QUEUE = score × 1.2 on a watched route × (1 + the weight \
            of the preferred airport it departs from), ties by lower price then earlier departure, so a \
            boosted score-62 deal can rank above an unboosted 95. One page of 20 by default (--limit, at most \
            100); the footer gives the --cursor of the next page. Free sees the top 20 in all, trial and Pro \
            every deal (the service asks the subscription service for the tier).

            Example: farelensctl deals --user u-0f3a9c2b7d1e4a55 --from JFK --under 600.00USD --nonstop --limit 10
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
    @Option(name: .long, help: "Deals a page, 1–100 (default 20).") var limit: Int?
    @Option(name: .long, help: "The page after the one whose footer gave this cursor.") var cursor: String?
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
            guard (1...100).contains(limit) else { throw ValidationError("--limit must be 1–100 deals a page, not \(limit)") }
            request.limit = Int32(limit)
        }
        if let cursor { request.cursor = cursor }
        return request
    }

    /// The table, a simulated-market warning when any deal is simulated, and the "N of TOTAL" footer.
    static func text(_ response: DealFeedResponse) -> String {
        let firstRank = max(1, Int(response.firstRank))
        var lines: [String] = []
        if response.items.contains(where: \.deal.simulated) { lines.append("SIMULATED fares (not real prices) are marked: the embedded simulated market answered.") }
        if response.scope == .everywhere { lines.append("Every deal: this user has no preferred airport and no watchlist yet.") }
        if response.items.isEmpty {
            lines.append("no deals match")
        } else {
            var table = TextTable("RANK", "ROUTE", "DEPART", "PRICE", "SCORE", "TIER", "QUEUE", "WHY HERE", "TOP REASON")
            for (index, item) in response.items.enumerated() {
                let deal = item.deal
                table.add(String(firstRank + index), ScoringOutput.route(deal.origin, deal.destination), departText(deal),
                          (deal.hasPrice ? deal.price.formatted : "-") + (deal.simulated ? " (simulated)" : ""),
                          String(deal.score.score), ScoringOutput.tierText(deal.score.tier), String(format: "%.1f", item.queueScore > 0 ? item.queueScore : Double(deal.score.score)),
                          whyHere(item), deal.score.reasons.first ?? "-")
            }
            lines.append(table.rendered)
        }
        var footer = response.items.isEmpty ? "0 of \(response.totalMatching) deals" : "\(firstRank)–\(firstRank + response.items.count - 1) of \(response.totalMatching) deals"
        if response.cappedByTier { footer += " (Free shows the top 20; Pro shows all)" }
        if !response.nextCursor.isEmpty { footer += "; next page: --cursor \(response.nextCursor)" }
        lines.append(footer)
        return lines.joined(separator: "\n")
    }

    /// Why a deal is in this user's feed: "watched", "from JFK ×1.6", or "-" (an everywhere feed's deal).
    static func whyHere(_ item: FeedItem) -> String {
        var parts: [String] = []
        if !item.matchedWatchlistID.isEmpty { parts.append("watched ×1.2") }
        if item.preferredAirportWeight > 0 { parts.append("from \(item.deal.origin) ×\(String(format: "%.1f", 1 + item.preferredAirportWeight))") }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
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
    /// `personal` (the user's airports and routes) or `everywhere` (they named neither yet).
    let scope: String
    /// The next page's `--cursor`; null on the last page.
    let nextCursor: ScoringOutput.OrNull<String>

    init(_ response: DealFeedResponse) {
        let first = max(1, Int(response.firstRank))
        deals = response.items.enumerated().map { DealJSON($1, rank: first + $0) }
        shown = response.items.count
        totalMatching = response.totalMatching
        cappedByTier = response.cappedByTier
        scope = response.scope == .everywhere ? "everywhere" : "personal"
        nextCursor = ScoringOutput.OrNull(response.nextCursor.isEmpty ? nil : response.nextCursor)
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
