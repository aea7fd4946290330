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

    /// One entry's place in the queue: small and scalar, so ranking 10,000 moves no strings.
    struct Ranked {
        /// Index into the ranked entries.
        let index: Int
        let queueScore: Double
        /// The boosts' product: `queueScore / dealScore`.
        let multiplier: Double
        let price: Int64
        let departureDay: Int
        /// Index into `watchlists` of the match; -1 for none.
        let watchlist: Int
        let weight: Double

        init(_ entry: FeedEntry, index: Int, watchlist: Int, weight: Double) {
            self.index = index
            multiplier = (watchlist < 0 ? 1 : 1 + DealRanking.watchlistBoost) * (1 + weight)
            queueScore = Double(entry.score) * multiplier
            price = entry.price
            departureDay = entry.departureDay
            self.watchlist = watchlist
            self.weight = weight
        }

        init(index: Int, queueScore: Double, multiplier: Double, price: Int64, departureDay: Int, watchlist: Int, weight: Double) {
            self.index = index
            self.queueScore = queueScore
            self.multiplier = multiplier
            self.price = price
            self.departureDay = departureDay
            self.watchlist = watchlist
            self.weight = weight
        }
    }

    /// `deals` as feed items, best first (tests and small lists).
    func rank(_ deals: [Deal]) -> [FeedItem] {
        let entries = deals.compactMap { FeedEntry($0, metroOf: metroOf) }
        return rank(entries).map { item($0, in: entries) }
    }

    /// `entries` ranked, best first (with a `limit`, only the best `limit`).
    func rank(_ entries: [FeedEntry], limit: Int? = nil) -> [Ranked] {
        let ordered = entries.sorted(by: Self.baseOrder)
        // Indices into `entries`, as the caller holds them.
        let position = Dictionary(uniqueKeysWithValues: entries.enumerated().map { (ObjectIdentifier($1), $0) })
        return rank(baseOrdered: ordered, limit: limit).ranked.map { item in
            let original = position[ObjectIdentifier(ordered[item.index])] ?? item.index
            return Ranked(
                index: original, queueScore: item.queueScore, multiplier: item.multiplier, price: item.price, departureDay: item.departureDay,
                watchlist: item.watchlist, weight: item.weight)
        }
    }

    /// The order of the deals before any boost, the one ``ScoringService``
    /// keeps its current deals in between requests: higher score, then lower
    /// price, earlier departure, deal id.
    static func baseOrder(_ left: FeedEntry, _ right: FeedEntry) -> Bool {
        if left.score != right.score { return left.score > right.score }
        if left.price != right.price { return left.price < right.price }
        if left.departureDay != right.departureDay { return left.departureDay < right.departureDay }
        return left.id < right.id
    }

    /// `entries`, which are in ``baseOrder(_:_:)``, ranked, best first,
    /// without sorting: a boost multiplies every score of its class by the
    /// same factor, so the entries sharing one (watchlist, preferred airport
    /// weight) boost are already in queue order among themselves, and the
    /// feed is the merge of those few runs. Linear in the entries (times the
    /// number of distinct boosts, a handful); with a `limit` the merge stops
    /// there. `keep` filters as it goes; `emit` turns each ranked entry into
    /// what the caller returns (no array of `Ranked` in between).
    ///
    /// - Returns: what `emit` made, best first, and how many entries were kept before the limit.
    func rank<Output>(
        baseOrdered entries: [FeedEntry], limit: Int? = nil, keep: (FeedEntry) -> Bool = { _ in true }, emit: (Ranked) -> Output
    ) -> (ranked: [Output], matching: Int) {
        // One run per boost; a run holds only indices (4 bytes a deal), in base order.
        var building: [Run] = []
        for index in entries.indices where keep(entries[index]) {
            let (watchlist, weight) = boost(entries[index])
            if let run = building.firstIndex(where: { $0.watchlist == watchlist && $0.weight == weight }) {
                building[run].indices.append(Int32(truncatingIfNeeded: index))
            } else {
                building.append(Run(watchlist: watchlist, weight: weight, indices: [Int32(truncatingIfNeeded: index)]))
            }
        }
        let runs = building  // read in place by the merge
        let matching = runs.reduce(0) { $0 + $1.indices.count }
        let wanted = min(limit ?? matching, matching)
        var output: [Output] = []
        output.reserveCapacity(wanted)
        func front(_ run: Int, at position: Int) -> Ranked? {
            guard position < runs[run].indices.count else { return nil }
            let index = Int(runs[run].indices[position])
            return Ranked(entries[index], index: index, watchlist: runs[run].watchlist, weight: runs[run].weight)
        }
        var positions = [Int](repeating: 0, count: runs.count)
        var fronts = runs.indices.map { front($0, at: 0) }
        while output.count < wanted {
            var best: (run: Int, ranked: Ranked)?
            for run in runs.indices {
                guard let candidate = fronts[run] else { continue }
                if best.map({ Self.before(candidate, $0.ranked, entries) }) ?? true { best = (run, candidate) }
            }
            guard let (run, ranked) = best else { break }
            output.append(emit(ranked))
            positions[run] += 1
            fronts[run] = front(run, at: positions[run])
        }
        return (output, matching)
    }

    /// `rank(baseOrdered:limit:keep:emit:)` giving the `Ranked` entries themselves.
    func rank(baseOrdered entries: [FeedEntry], limit: Int? = nil, keep: (FeedEntry) -> Bool = { _ in true }) -> (ranked: [Ranked], matching: Int) {
        rank(baseOrdered: entries, limit: limit, keep: keep) { $0 }
    }

    /// The entries of one boost, in base order.
    private struct Run {
        let watchlist: Int
        let weight: Double
        var indices: [Int32]
    }

    /// Queue order: higher queue score, then lower price, earlier departure, deal id.
    static func before(_ left: Ranked, _ right: Ranked, _ entries: [FeedEntry]) -> Bool {
        if left.queueScore != right.queueScore { return left.queueScore > right.queueScore }
        if left.price != right.price { return left.price < right.price }
        if left.departureDay != right.departureDay { return left.departureDay < right.departureDay }
        return entries[left.index].id < entries[right.index].id
    }

    /// One deal as a feed item: with its `queue_score`, `matched_watchlist_id` and `preferred_airport_weight`.
    func scored(_ deal: Deal) -> FeedItem {
        guard let entry = FeedEntry(deal, metroOf: metroOf) else {
            var item = FeedItem()
            item.deal = deal
            return item
        }
        return item(ranked(entry, index: 0), in: [entry])
    }

    func ranked(_ entry: FeedEntry, index: Int) -> Ranked {
        let (watchlist, weight) = boost(entry)
        return Ranked(entry, index: index, watchlist: watchlist, weight: weight)
    }

    /// The boosts `entry` gets from this user: the index in `watchlists` of
    /// the first watchlist it matches (-1: none) and the weight of the
    /// preferred airport it departs from (0: none).
    func boost(_ entry: FeedEntry) -> (watchlist: Int, weight: Double) {
        let match = watchlists.firstIndex { route in
            entry.departs(from: route.origin) && entry.arrives(at: route.destination)
                && (route.cabin == entry.cabin || (route.cabin == .unspecified && entry.cabin == .economy))
        }
        // A user prefers a few airports: comparing short codes beats hashing them twice per deal.
        var weight = 0.0
        for (code, codeWeight) in preferred where codeWeight > weight && entry.departs(from: code) { weight = codeWeight }
        return (match ?? -1, weight)
    }

    /// The feed item of one ranked entry: the deal message as kept (shared,
    /// not copied) and the user's ranking beside it.
    func item(_ ranked: Ranked, in entries: [FeedEntry]) -> FeedItem {
        var item = FeedItem()
        item.deal = entries[ranked.index].deal
        item.queueScore = ranked.queueScore
        if ranked.watchlist >= 0 { item.matchedWatchlistID = watchlists[ranked.watchlist].watchlistID }
        item.preferredAirportWeight = ranked.weight
        return item
    }

    /// What a feed request keeps: score ≥ 60, departing on or after `today`
    /// (the user's date), not expired at `nowMs`, and every filter that is set.
    struct Filter {
        let filter: DealFeedFilter
        let origin: String, destination: String, carrier: String
        let todayDay: Int, thisMonth: Int, nowMs: Int64
        let maxPrice: (amount: Int64, currency: String)?

        init(_ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64) {
            self.filter = filter
            origin = filter.origin.uppercased()
            destination = filter.destination.uppercased()
            carrier = filter.carrier.uppercased()
            todayDay = today.daysSinceEpoch
            thisMonth = today.year * 100 + today.month
            self.nowMs = nowMs
            maxPrice = filter.hasMaxPrice ? (filter.maxPrice.minorUnits, filter.maxPrice.currency.uppercased()) : nil
        }

        func keeps(_ entry: FeedEntry) -> Bool {
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

    /// The current deals that pass `filter` (see ``Filter``).
    static func filter(_ entries: [FeedEntry], _ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64) -> [FeedEntry] {
        let filter = Filter(filter, today: today, nowMs: nowMs)
        return entries.filter(filter.keeps)
    }

    /// `filter` over deal messages (tests).
    static func filter(_ deals: [Deal], _ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64, metroOf: [String: String]) -> [Deal] {
        Self.filter(deals.compactMap { FeedEntry($0, metroOf: metroOf) }, filter, today: today, nowMs: nowMs).map(\.deal)
    }
}
