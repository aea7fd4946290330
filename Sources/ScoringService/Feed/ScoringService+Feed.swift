import FareLensBus
import FareLensMessages
import Foundation

extension ScoringService {
    /// One user's deal feed: the current deals (score ≥ 60, departing today
    /// or later in the user's zone, not expired) that pass the filter, ranked
    /// by ``DealRanking``; Free sees the top `visible_deals` (20), trial and
    /// Pro all. The user's tier, entitlements and preferred airports come
    /// from the subscription service and their watchlists from the watchlist
    /// service, over the bus (the request's own `tier` is not trusted).
    func dealFeed(_ request: DealFeedRequest, context: RequestContext? = nil) async throws(ScoringError) -> DealFeedResponse {
        guard !request.userID.isEmpty else { throw .invalidField("user_id", "is required") }
        guard request.limit >= 0 else { throw .invalidField("limit", "must not be negative") }
        if request.filter.hasMaxPrice { _ = try Self.price(request.filter.maxPrice) }
        let found: GetUserResponse?
        do {
            found = try await GetUserRequest.user(request.userID, on: bus, parent: context)
        } catch {
            throw .unavailable("subscription", "\(error)")
        }
        guard let user = found else { throw .unknownUser(request.userID) }
        let watchlists = await activeWatchlists(request.userID, context: context)
        let zone = TimeZone(identifier: user.user.timeZone) ?? .gmt
        let now = clock.now()
        let ranking = DealRanking(
            preferred: Dictionary(user.user.preferredAirports.map { ($0.code, $0.weight) }, uniquingKeysWith: max),
            watchlists: watchlists, metroOf: reference.metroOf)
        let filter = DealRanking.Filter(request.filter, today: CalendarDate.of(now, in: zone), nowMs: Self.unixMs(now), codes: feedCodes)
        var limit: Int?
        if user.entitlements.hasVisibleDeals { limit = Int(user.entitlements.visibleDeals) }
        if request.limit > 0 { limit = min(limit ?? .max, Int(request.limit)) }
        let table = currentFeedTable()
        // Each item shares its deal's message: nothing is copied per deal.
        let (items, matching) = ranking.rank(table, codes: feedCodes, limit: limit, keep: filter.keeps) { ranking.item($0, in: table) }
        var response = DealFeedResponse()
        response.totalMatching = Int32(clamping: matching)
        response.cappedByTier = user.entitlements.hasVisibleDeals && matching > Int(user.entitlements.visibleDeals)
        response.items = items
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
