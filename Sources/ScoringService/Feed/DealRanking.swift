import FareLensMessages

/// The smart queue of SPEC §2, pure so every rule is tested without a bus:
/// `queueScore = dealScore × (1 + 0.2 if the deal matches one of the user's
/// watchlists) × (1 + the weight of the user's preferred airport it departs
/// from)`; ties by lower price, then earlier departure (then the deal id, so
/// the order is total; see `rank`).
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

    /// One entry's place in the queue: small and scalar, so sorting 10,000 moves no strings.
    struct Ranked {
        /// Index into the ranked entries.
        let index: Int
        let queueScore: Double
        let price: Int64
        let departureDay: Int
        /// Index into `watchlists` of the match; -1 for none.
        let watchlist: Int
        let weight: Double
    }

    /// `deals` with their queue fields set, best first (tests and small lists).
    func rank(_ deals: [Deal]) -> [Deal] {
        let entries = deals.compactMap { FeedEntry($0, metroOf: metroOf) }
        return rank(entries).map { deal($0, in: entries) }
    }

    /// `entries` ranked, best first; only scalar keys and indices are sorted.
    /// With a `limit`, only the best `limit` are kept (a bounded insertion
    /// instead of sorting everything).
    func rank(_ entries: [FeedEntry], limit: Int? = nil) -> [Ranked] {
        let before = { (left: Ranked, right: Ranked) -> Bool in
            if left.queueScore != right.queueScore { return left.queueScore > right.queueScore }
            if left.price != right.price { return left.price < right.price }
            if left.departureDay != right.departureDay { return left.departureDay < right.departureDay }
            return entries[left.index].id < entries[right.index].id
        }
        guard let limit, limit < entries.count / 4 else { return entries.indices.map { ranked(entries[$0], index: $0) }.sorted(by: before) }
        var best: [Ranked] = []
        best.reserveCapacity(limit + 1)
        for index in entries.indices {
            let candidate = ranked(entries[index], index: index)
            if best.count == limit, let worst = best.last, !before(candidate, worst) { continue }
            var low = 0, high = best.count
            while low < high {
                let middle = (low + high) / 2
                if before(best[middle], candidate) { low = middle + 1 } else { high = middle }
            }
            best.insert(candidate, at: low)
            if best.count > limit { best.removeLast() }
        }
        return best
    }

    /// One deal with `queue_score`, `matched_watchlist_id` and `preferred_airport_weight` set.
    func scored(_ deal: Deal) -> Deal {
        guard let entry = FeedEntry(deal, metroOf: metroOf) else { return deal }
        return self.deal(ranked(entry, index: 0), in: [entry])
    }

    func ranked(_ entry: FeedEntry, index: Int) -> Ranked {
        let match = watchlists.firstIndex { route in
            entry.departs(from: route.origin) && entry.arrives(at: route.destination)
                && (route.cabin == entry.cabin || (route.cabin == .unspecified && entry.cabin == .economy))
        }
        let weight = preferred.isEmpty ? 0 : max(preferred[entry.origin] ?? 0, entry.originMetro.isEmpty ? 0 : preferred[entry.originMetro] ?? 0)
        let queueScore = Double(entry.score) * (match == nil ? 1 : 1 + Self.watchlistBoost) * (1 + weight)
        return Ranked(index: index, queueScore: queueScore, price: entry.price, departureDay: entry.departureDay, watchlist: match ?? -1, weight: weight)
    }

    /// The deal message with its queue fields, for the response.
    func deal(_ ranked: Ranked, in entries: [FeedEntry]) -> Deal {
        var deal = entries[ranked.index].deal
        deal.queueScore = ranked.queueScore
        deal.matchedWatchlistID = ranked.watchlist >= 0 ? watchlists[ranked.watchlist].watchlistID : ""
        deal.preferredAirportWeight = ranked.weight
        return deal
    }

    /// The current deals that pass `filter`: score ≥ 60, departing on or
    /// after `today` (the user's date), not expired at `nowMs`, and every filter that is set.
    static func filter(_ entries: [FeedEntry], _ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64) -> [FeedEntry] {
        let origin = filter.origin.uppercased(), destination = filter.destination.uppercased(), carrier = filter.carrier.uppercased()
        let todayDay = today.daysSinceEpoch, thisMonth = today.year * 100 + today.month
        let maxPrice = filter.hasMaxPrice ? (filter.maxPrice.minorUnits, filter.maxPrice.currency.uppercased()) : nil
        return entries.filter { entry in
            guard entry.score >= 60, entry.expiresAtUnixMs > nowMs, entry.departureDay >= todayDay else { return false }
            if filter.internationalOnly, !entry.international { return false }
            if filter.nonstopOnly, entry.stops > 0 { return false }
            if let (amount, currency) = maxPrice, entry.currency != currency || entry.price > amount { return false }
            if filter.departingThisMonth, entry.departureMonth != thisMonth { return false }
            if !origin.isEmpty, !entry.departs(from: origin) { return false }
            if !destination.isEmpty, !entry.arrives(at: destination) { return false }
            if !carrier.isEmpty, entry.carrier != carrier { return false }
            return true
        }
    }

    /// `filter` over deal messages (tests).
    static func filter(_ deals: [Deal], _ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64, metroOf: [String: String]) -> [Deal] {
        Self.filter(deals.compactMap { FeedEntry($0, metroOf: metroOf) }, filter, today: today, nowMs: nowMs).map(\.deal)
    }
}
