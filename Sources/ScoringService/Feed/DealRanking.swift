import FareLensMessages

/// The smart queue of SPEC §2, pure so every rule is tested without a bus:
/// `queueScore = dealScore × (1 + 0.2 if the deal matches one of the user's
/// watchlists) × (1 + the weight of the user's preferred airport it departs
/// from)`; ties by lower price, then earlier departure (then the deal id, so
/// the order is total).
struct DealRanking: Sendable {
    /// A route on one of the user's active watchlists.
    struct WatchedRoute: Sendable, Equatable {
        var watchlistID: String
        var origin: String
        var destination: String
        var cabin: Cabin
    }

    /// The watchlist boost.
    static let watchlistBoost = 0.2

    /// Preferred airport (or metro) code → weight.
    let preferred: [String: Double]
    let watchlists: [WatchedRoute]
    /// Airport → metro, so a watchlist or preferred airport given as a metro (NYC) matches its airports (JFK).
    let metroOf: [String: String]

    /// `deals` with their queue fields set, best first.
    func rank(_ deals: [Deal]) -> [Deal] {
        deals.map(scored).sorted(by: Self.before)
    }

    /// One deal with `queue_score`, `matched_watchlist_id` and `preferred_airport_weight` set.
    func scored(_ deal: Deal) -> Deal {
        var ranked = deal
        let match = watchlists.first { route in
            codes(deal.origin).contains(route.origin) && codes(deal.destination).contains(route.destination)
                && (route.cabin == deal.cabin || (route.cabin == .unspecified && deal.cabin == .economy))
        }
        let weight = codes(deal.origin).compactMap { preferred[$0] }.max() ?? 0
        ranked.matchedWatchlistID = match?.watchlistID ?? ""
        ranked.preferredAirportWeight = weight
        ranked.queueScore = Double(deal.score.score) * (match == nil ? 1 : 1 + Self.watchlistBoost) * (1 + weight)
        return ranked
    }

    private func codes(_ airport: String) -> [String] {
        [airport, metroOf[airport]].compactMap { $0 }
    }

    /// Higher queue score first; then lower price; then earlier departure; then the id.
    static func before(_ left: Deal, _ right: Deal) -> Bool {
        if left.queueScore != right.queueScore { return left.queueScore > right.queueScore }
        if left.price.minorUnits != right.price.minorUnits { return left.price.minorUnits < right.price.minorUnits }
        let (leftDay, rightDay) = (CalendarDate(left.departureDate)?.daysSinceEpoch ?? 0, CalendarDate(right.departureDate)?.daysSinceEpoch ?? 0)
        if leftDay != rightDay { return leftDay < rightDay }
        return left.dealID < right.dealID
    }

    /// The current deals that pass `filter`: score ≥ 60, departing on or
    /// after `today` (the user's date), not expired at `nowMs`, and every filter that is set.
    static func filter(_ deals: [Deal], _ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64, metroOf: [String: String]) -> [Deal] {
        let origin = filter.origin.uppercased(), destination = filter.destination.uppercased(), carrier = filter.carrier.uppercased()
        return deals.filter { deal in
            guard deal.score.score >= 60, deal.expiresAtUnixMs > nowMs, let departure = CalendarDate(deal.departureDate), departure >= today else {
                return false
            }
            if filter.internationalOnly, deal.originCountry == deal.destinationCountry { return false }
            if filter.nonstopOnly, deal.stops > 0 { return false }
            if filter.hasMaxPrice, deal.price.currency != filter.maxPrice.currency.uppercased() || deal.price.minorUnits > filter.maxPrice.minorUnits {
                return false
            }
            if filter.departingThisMonth, departure.year != today.year || departure.month != today.month { return false }
            if !origin.isEmpty, deal.origin != origin, metroOf[deal.origin] != origin { return false }
            if !destination.isEmpty, deal.destination != destination, metroOf[deal.destination] != destination { return false }
            if !carrier.isEmpty, deal.carrier != carrier { return false }
            return true
        }
    }
}
