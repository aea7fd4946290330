import FareLensBus
import FareLensMessages
import Logging

/// Asking subscription who an alert is for, waiting while it cannot answer:
/// an event is decided with the answer or not at all, never skipped because
/// subscription was away (docs/alerts.md, "When subscription is away").
extension AlertsService {
    /// The settings of `userIDs` from subscription, asked ``GetUsersRequest``
    /// by ``recipientsPerRequest``, every failure waited out
    /// (``retryingEverySecond(_:level:metadata:isFinal:_:)``: the ids are valid by construction);
    /// users it does not know are left out (logged). Nil on cancellation.
    func recipientsWaiting(_ userIDs: [String]) async -> [String: AlertRecipient]? {
        var recipients: [String: AlertRecipient] = [:]
        recipients.reserveCapacity(userIDs.count)
        var zones = RecipientZones()
        for start in stride(from: 0, to: userIDs.count, by: Self.recipientsPerRequest) {
            var request = GetUsersRequest()
            request.userIds = Array(userIDs[start..<min(userIDs.count, start + Self.recipientsPerRequest)])
            let asked = await retryingEverySecond("GetUsers unanswered; alert decisions wait", level: .warning, metadata: ["users": "\(request.userIds.count)"]) {
                () async throws(BusError) in try await bus.request(request)
            }
            guard case .success(let answer)? = asked else { return nil }
            for known in answer.users { recipients[known.user.userID] = zones.recipient(known.user, entitlements: known.entitlements) }
            for unknown in answer.unknownUserIds { logger.notice("alert for an unknown user skipped", metadata: ["user": "\(unknown)"]) }
        }
        return recipients
    }

    /// Users asked for in one ``GetUsersRequest`` (subscription's limit).
    static let recipientsPerRequest = 1_000

    /// Every user preferring `airport` or its `metro` (a user who prefers
    /// LON hears of a deal from LCY), once each with the higher weight.
    func preferredAirportUsers(_ airport: String, orMetro metro: String?) async throws(BusError) -> [PreferredAirportUser] {
        let direct = try await preferredAirportUsers(airport)
        guard let metro else { return direct }
        let viaMetro = try await preferredAirportUsers(metro)
        var best: [String: PreferredAirportUser] = [:]
        for user in direct + viaMetro where user.weight > best[user.userID]?.weight ?? -1 { best[user.userID] = user }
        return best.values.sorted { $0.userID < $1.userID }
    }

    /// Every user preferring `airport`, all pages.
    func preferredAirportUsers(_ airport: String) async throws(BusError) -> [PreferredAirportUser] {
        var users: [PreferredAirportUser] = []
        var request = PreferredAirportUsersRequest()
        request.airport = airport
        repeat {
            let page = try await bus.request(request)
            users += page.users
            request.pageToken = page.nextPageToken
        } while !request.pageToken.isEmpty
        return users
    }

    /// The users watching `deal`'s route (``routeWatchers(of:)``), every
    /// failure but a refusal waited out as for subscription; a refusal
    /// (watchlist does not accept the route's codes) is logged and nobody
    /// watches. Nil on cancellation.
    func routeWatchersWaiting(of deal: Deal) async -> Set<String>? {
        let asked = await retryingEverySecond("RouteWatchers unanswered; alert decisions wait", level: .warning, metadata: ["deal": "\(deal.dealID)"], isFinal: Self.isRefusal) {
            () async throws(BusError) in try await routeWatchers(of: deal)
        }
        switch asked {
        case nil: return nil
        case .success(let watchers)?: return watchers
        case .failure(let refusal)?:
            logger.error("exceptional deal ranked without the watchlist factor: watchlist refused its route", metadata: ["deal": "\(deal.dealID)", "route": "\(deal.origin)-\(deal.destination)", "error": "\(refusal)"])
            return []
        }
    }

    /// Every user with an active watchlist on `deal`'s route and cabin, all
    /// pages. Either end matches as its airport or its metro (a watchlist
    /// LON→NRT watches a deal LHR→NRT), once ``learnPlaces(_:)`` has learnt them.
    func routeWatchers(of deal: Deal) async throws(BusError) -> Set<String> {
        var request = RouteWatchersRequest()
        request.origins = [deal.origin] + (metro(of: deal.origin).map { [$0] } ?? [])
        request.destinations = [deal.destination] + (metro(of: deal.destination).map { [$0] } ?? [])
        request.cabin = deal.cabin
        var watchers = Set<String>()
        repeat {
            let page = try await bus.request(request)
            watchers.formUnion(page.userIds)
            request.pageToken = page.nextPageToken
        } while !request.pageToken.isEmpty
        return watchers
    }
}
