import FareLensMessages

extension DealRanking {
    /// What a feed request keeps: score ≥ 60, departing on or after `today`
    /// (the user's date), not expired at `nowMs`, and every filter that is
    /// set. Its codes are looked up once, in the feed's ``FeedCodes``.
    struct Filter {
        let internationalOnly: Bool, nonstopOnly: Bool, departingThisMonth: Bool
        let origin: Int32, destination: Int32, carrier: Int32
        let todayDay: Int32, thisMonth: Int32, nowMs: Int64
        let maxPrice: (amount: Int64, currency: Int32)?

        init(_ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64, codes: FeedCodes) {
            internationalOnly = filter.internationalOnly
            nonstopOnly = filter.nonstopOnly
            departingThisMonth = filter.departingThisMonth
            origin = codes.lookup(filter.origin.uppercased())
            destination = codes.lookup(filter.destination.uppercased())
            carrier = codes.lookup(filter.carrier.uppercased())
            todayDay = Int32(truncatingIfNeeded: today.daysSinceEpoch)
            thisMonth = Int32(today.year * 100 + today.month)
            self.nowMs = nowMs
            maxPrice = filter.hasMaxPrice ? (filter.maxPrice.minorUnits, codes.lookup(filter.maxPrice.currency.uppercased())) : nil
        }

        func keeps(_ row: FeedRow) -> Bool {
            guard row.score >= 60, row.expiresAtUnixMs > nowMs, row.departureDay >= todayDay else { return false }
            if internationalOnly, !row.international { return false }
            if nonstopOnly, row.stops > 0 { return false }
            if let (amount, currency) = maxPrice, row.currency != currency || row.price > amount { return false }
            if departingThisMonth, row.departureMonth != thisMonth { return false }
            if origin != FeedCodes.none, !row.departs(from: origin) { return false }
            if destination != FeedCodes.none, !row.arrives(at: destination) { return false }
            if carrier != FeedCodes.none, row.carrier != carrier { return false }
            return true
        }
    }

    /// The deals that pass `filter` (tests; see ``Filter``).
    static func filter(_ deals: [Deal], _ filter: DealFeedFilter, today: CalendarDate, nowMs: Int64, metroOf: [String: String]) -> [Deal] {
        var codes = FeedCodes()
        let entries = deals.compactMap { FeedEntry($0, metroOf: metroOf, codes: &codes) }
        let filter = Filter(filter, today: today, nowMs: nowMs, codes: codes)
        return entries.filter { filter.keeps($0.row) }.map(\.deal)
    }
}
