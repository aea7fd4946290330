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
        var index: Int
        let queueScore: Double
        /// The boosts' product: `queueScore / dealScore`.
        let multiplier: Double
        let price: Int64
        let departureDay: Int32
        /// Index into `watchlists` of the match; -1 for none.
        let watchlist: Int
        let weight: Double

        init(_ row: FeedRow, index: Int, watchlist: Int, weight: Double) {
            self.index = index
            multiplier = (watchlist < 0 ? 1 : 1 + DealRanking.watchlistBoost) * (1 + weight)
            queueScore = Double(row.score) * multiplier
            price = row.price
            departureDay = row.departureDay
            self.watchlist = watchlist
            self.weight = weight
        }
    }

    /// Whether the user has told the product where they fly: a preferred
    /// airport or a watchlist. Their feed then holds only their deals
    /// (``Boosts/isPersonal(_:)``).
    var isPersonal: Bool { !preferred.isEmpty || !watchlists.isEmpty }

    /// The user's boosts in a feed's codes (``FeedCodes``): what a scan compares.
    struct Boosts {
        struct Route {
            let origin: Int32
            let destination: Int32
            let cabin: Cabin
        }

        let routes: [Route]
        let preferred: [(code: Int32, weight: Double)]
        /// The preferred airports and their metros (JFK → JFK and NYC): a
        /// deal from any of them is the traveller's.
        let home: [Int32]

        init(_ ranking: DealRanking, codes: FeedCodes) {
            routes = ranking.watchlists.map { Route(origin: codes.lookup($0.origin), destination: codes.lookup($0.destination), cabin: $0.cabin) }
            preferred = ranking.preferred.map { (codes.lookup($0.key), $0.value) }
            home = ranking.preferred.keys.flatMap { code in [codes.lookup(code)] + (ranking.metroOf[code].map { [codes.lookup($0)] } ?? []) }
        }

        /// Whether `row` belongs in the user's own feed: it departs from a
        /// preferred airport or an airport of its metro, or it is on a
        /// watched route (any cabin).
        func isPersonal(_ row: FeedRow) -> Bool {
            home.contains { row.departs(from: $0) }
                || routes.contains { row.departs(from: $0.origin) && row.arrives(at: $0.destination) }
        }

        /// The boosts `row` gets: the index in `watchlists` of the first
        /// watchlist it matches (-1: none) and the weight of the preferred
        /// airport it departs from (0: none).
        func of(_ row: FeedRow) -> (watchlist: Int, weight: Double) {
            var match = -1
            for (index, route) in routes.enumerated()
            where row.departs(from: route.origin) && row.arrives(at: route.destination)
                && (Int32(route.cabin.rawValue) == row.cabin || (route.cabin == .unspecified && row.cabin == Int32(Cabin.economy.rawValue))) {
                match = index
                break
            }
            var weight = 0.0
            for (code, codeWeight) in preferred where codeWeight > weight && row.departs(from: code) { weight = codeWeight }
            return (match, weight)
        }
    }

    /// `deals` as feed items, best first (tests and small lists).
    func rank(_ deals: [Deal]) -> [FeedItem] {
        var codes = FeedCodes()
        let table = FeedTable(deals.compactMap { FeedEntry($0, metroOf: metroOf, codes: &codes) })
        return rank(table, codes: codes).ranked.map { item($0, in: table) }
    }

    /// `entries` (their codes from `codes`) ranked, best first (with a
    /// `limit`, only the best `limit`); indices are into `entries`.
    func rank(_ entries: [FeedEntry], codes: FeedCodes, limit: Int? = nil) -> [Ranked] {
        let table = FeedTable(entries)
        let position = Dictionary(uniqueKeysWithValues: entries.enumerated().map { (ObjectIdentifier($1), $0) })
        return rank(table, codes: codes, limit: limit).ranked.map { ranked in
            var moved = ranked
            moved.index = position[ObjectIdentifier(table.entries[ranked.index])] ?? ranked.index
            return moved
        }
    }

    /// The order of the deals before any boost, the one ``FeedTable`` keeps:
    /// higher score, then lower price, earlier departure, deal id.
    static func baseOrder(_ left: FeedEntry, _ right: FeedEntry) -> Bool {
        if left.row.score != right.row.score { return left.row.score > right.row.score }
        if left.row.price != right.row.price { return left.row.price < right.row.price }
        if left.row.departureDay != right.row.departureDay { return left.row.departureDay < right.row.departureDay }
        return left.id < right.id
    }

    /// `table` ranked, best first, without sorting: a boost multiplies every
    /// score of its class by the same factor, so the deals sharing one
    /// (watchlist, preferred airport weight) boost are already in queue
    /// order among themselves in the table's base order, and the feed is the
    /// merge of those few runs. Linear in the deals (times the number of
    /// distinct boosts, a handful); with a `limit` the merge stops there.
    /// `keep` filters as it goes; `emit` turns each ranked deal into what the
    /// caller returns (no array of `Ranked` in between). `codes` are the
    /// ones the table's rows were made with.
    ///
    /// - Returns: what `emit` made, best first, and how many deals were kept before the limit.
    func rank<Output>(
        _ table: FeedTable, codes: FeedCodes, limit: Int? = nil, keep: (FeedRow) -> Bool = { _ in true }, emit: (Ranked) -> Output
    ) -> (ranked: [Output], matching: Int) {
        let boosts = Boosts(self, codes: codes)
        let rows = table.rows
        // One run per boost; a run holds only indices (4 bytes a deal), in base order.
        var building: [Run] = []
        for index in rows.indices where keep(rows[index]) {
            let (watchlist, weight) = boosts.of(rows[index])
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
            return Ranked(rows[index], index: index, watchlist: runs[run].watchlist, weight: runs[run].weight)
        }
        var positions = [Int](repeating: 0, count: runs.count)
        var fronts = runs.indices.map { front($0, at: 0) }
        while output.count < wanted {
            var best: (run: Int, ranked: Ranked)?
            for run in runs.indices {
                guard let candidate = fronts[run] else { continue }
                if best.map({ Self.before(candidate, $0.ranked, table.entries) }) ?? true { best = (run, candidate) }
            }
            guard let (run, ranked) = best else { break }
            output.append(emit(ranked))
            positions[run] += 1
            fronts[run] = front(run, at: positions[run])
        }
        return (output, matching)
    }

    /// `rank(_:codes:limit:keep:emit:)` giving the `Ranked` deals themselves.
    func rank(_ table: FeedTable, codes: FeedCodes, limit: Int? = nil, keep: (FeedRow) -> Bool = { _ in true }) -> (ranked: [Ranked], matching: Int) {
        rank(table, codes: codes, limit: limit, keep: keep) { $0 }
    }

    /// The deals of one boost, in base order.
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
        var codes = FeedCodes()
        guard let entry = FeedEntry(deal, metroOf: metroOf, codes: &codes) else {
            var item = FeedItem()
            item.deal = deal
            return item
        }
        return item(ranked(entry, index: 0, codes: codes), in: FeedTable(baseOrdered: [entry]))
    }

    /// `entry` (its codes from `codes`) with this user's boosts.
    func ranked(_ entry: FeedEntry, index: Int, codes: FeedCodes) -> Ranked {
        let (watchlist, weight) = Boosts(self, codes: codes).of(entry.row)
        return Ranked(entry.row, index: index, watchlist: watchlist, weight: weight)
    }

    /// The feed item of one ranked deal: the deal's ready item (its message
    /// shared, not copied) with the user's ranking set where it boosts.
    func item(_ ranked: Ranked, in table: FeedTable) -> FeedItem {
        var item = table.items[ranked.index]
        if ranked.watchlist >= 0 || ranked.weight != 0 {
            item.queueScore = ranked.queueScore
            if ranked.watchlist >= 0 { item.matchedWatchlistID = watchlists[ranked.watchlist].watchlistID }
            item.preferredAirportWeight = ranked.weight
        }
        return item
    }
}
