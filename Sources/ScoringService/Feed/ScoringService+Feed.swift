import FareLensBus
import FareLensMessages
import Foundation

extension ScoringService {
    /// The default page of the feed, and the largest page one request gets.
    static let defaultFeedPage = 20, maximumFeedPage = 100

    /// One user's deal feed, a page at a time: the current deals (score ≥ 60,
    /// departing today or later in the user's zone, not expired) that are
    /// the traveller's — departing from a preferred airport or an airport of
    /// its metro, or on a watched route; every deal for a user with neither
    /// (``FeedScope/everywhere``) — and pass the filter, ranked by
    /// ``DealRanking``. Free sees the top `visible_deals` (20) in all, trial
    /// and Pro every deal. The user's tier, entitlements and preferred
    /// airports come from the subscription service and their watchlists from
    /// the watchlist service, over the bus (the request's own `tier` is not
    /// trusted).
    func dealFeed(_ request: DealFeedRequest, context: RequestContext? = nil) async throws(ScoringError) -> DealFeedResponse {
        guard !request.userID.isEmpty else { throw .invalidField("user_id", "is required") }
        guard (0...Int32(Self.maximumFeedPage)).contains(request.limit) else {
            throw .invalidField("limit", "must be 1–\(Self.maximumFeedPage) deals a page (0 for \(Self.defaultFeedPage)), not \(request.limit)")
        }
        let page = request.limit == 0 ? Self.defaultFeedPage : Int(request.limit)
        let offset = try FeedCursor.offset(request.cursor)
        if request.filter.hasMaxPrice { _ = try Self.price(request.filter.maxPrice) }
        let found: GetUserResponse?
        do {
            found = try await GetUserRequest.user(request.userID, on: bus, parent: context)
        } catch {
            throw .unavailable("subscription", cause: error)
        }
        guard let user = found else { throw .unknownUser(request.userID) }
        let watchlists = await activeWatchlists(request.userID, context: context)
        let zone = TimeZone(identifier: user.user.timeZone) ?? .gmt
        let now = clock.now()
        let ranking = DealRanking(
            preferred: Dictionary(user.user.preferredAirports.map { ($0.code, $0.weight) }, uniquingKeysWith: max),
            watchlists: watchlists, metroOf: reference.metroOf)
        let filter = DealRanking.Filter(request.filter, today: CalendarDate.of(now, in: zone), nowMs: Self.unixMs(now), codes: feedCodes)
        let scope: FeedScope = ranking.isPersonal ? .personal : .everywhere
        let boosts = DealRanking.Boosts(ranking, codes: feedCodes)
        let cap = user.entitlements.hasVisibleDeals ? Int(user.entitlements.visibleDeals) : Int.max
        let table = currentFeedTable()
        // The deals up to the end of this page and one more (to know whether
        // another page follows), never past the tier's cap.
        let (ranked, matching) = ranking.rank(table, codes: feedCodes, limit: min(cap, offset + page + 1), keep: { row in
            filter.keeps(row) && (scope == .everywhere || boosts.isPersonal(row))
        })
        var response = DealFeedResponse()
        response.scope = scope
        response.firstRank = Int32(offset + 1)
        response.totalMatching = Int32(clamping: matching)
        response.cappedByTier = user.entitlements.hasVisibleDeals && matching > cap
        // Each item shares its deal's message: nothing is copied per deal.
        response.items = ranked.dropFirst(offset).prefix(page).map { ranking.item($0, in: table) }
        if ranked.count > offset + page, offset + page <= FeedCursor.maximumOffset {
            response.nextCursor = FeedCursor.cursor(offset: offset + page)
        }
        return response
    }

    /// The user's active watchlists' routes; none when the watchlist service
    /// cannot be asked (the feed is then ranked without the watchlist boost).
    private func activeWatchlists(_ userID: String, context: RequestContext?) async -> [DealRanking.WatchedRoute] {
        var request = ListWatchlistsRequest()
        request.userID = userID
        do {
            return try await bus.request(request, parent: context).watchlists.map {
                DealRanking.WatchedRoute(watchlistID: $0.watchlistID, origin: $0.origin, destination: $0.destination, cabin: $0.cabin)
            }
        } catch {
            logger.notice("deal feed without watchlists: the watchlist service did not answer", metadata: ["user": "\(userID)", "error": "\(error)"])
            return []
        }
    }

    /// The current deals as a ``FeedTable``, made again only after they
    /// changed (ingest, housekeeping), not for every request.
    func currentFeedTable() -> FeedTable {
        if let feedTable { return feedTable }
        let table = FeedTable(current.values)
        feedTable = table
        return table
    }

    /// `deal` as the feed keeps it; nil when its departure date is not a date.
    func feedEntry(_ deal: Deal) -> FeedEntry? {
        FeedEntry(deal, metroOf: reference.metroOf, codes: &feedCodes)
    }

    /// Puts a deal in the feed's working set directly (tests of the feed, without fares).
    func setCurrentForTesting(_ deal: Deal) {
        current[deal.dealID] = feedEntry(deal)
    }
}
