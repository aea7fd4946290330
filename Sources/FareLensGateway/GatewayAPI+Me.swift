import FareLensBus
import FareLensMessages
import Hummingbird

/// The signed-in user's own resources, under `/v1/me` (docs/api.md, "Scoping").
extension GatewayAPI {


    func deleteAccount(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var message = DeleteUserRequest()
        message.userID = try context.userID()
        _ = try await call(message)
        return Response(status: .noContent)
    }


    /// The feed a page at a time: `limit` (20 by default) deals from
    /// `cursor` (the previous page's `next_cursor`), best first, with
    /// `next_cursor` while more follow (the scoring service pages it).
    func deals(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var feed = DealFeedRequest()
        feed.userID = try context.userID()
        feed.limit = Int32(try request.integer("limit", in: 1...100) ?? 20)
        if let cursor = request.uri.queryParameters.get("cursor") { feed.cursor = String(cursor) }
        if let origin = request.uri.queryParameters.get("origin") { feed.filter.origin = String(origin) }
        if let destination = request.uri.queryParameters.get("destination") { feed.filter.destination = String(destination) }
        if let nonstop = try request.boolean("nonstop_only") { feed.filter.nonstopOnly = nonstop }
        var page = try await call(feed)
        // An empty page asks nothing more.
        if !page.items.isEmpty, let (currency, table) = try await approximation(for: feed.userID) { page.approximate(in: currency, with: table) }
        if !page.items.isEmpty { page.annotate(with: await routeTrackRecords(page.trackRecordRoutes)) }
        return try ProtoJSON.response(page, to: request, cacheable: true)
    }

    func alertHistory(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var history = AlertHistoryRequest()
        history.userID = try context.userID()
        history.limit = Int32(try request.integer("limit", in: 1...500) ?? 50)
        history.sinceUnixMs = Int64(try request.integer("since_unix_ms", in: 0...Int(Int64.max)) ?? 0)
        var answer = try await call(history)
        let routes = answer.trackRecordRoutes
        if !routes.isEmpty { answer.annotate(with: await routeTrackRecords(routes)) }
        return try ProtoJSON.response(answer, to: request, cacheable: true)
    }

    /// How long a payload waits for analytics to tell a route's track record before it is shown without.
    static let trackRecordDeadline: Duration = .seconds(2)

    /// The 30-day track record of each route that analytics answers for in time.
    func routeTrackRecords(_ routes: Set<RouteTrackRecords.Route>) async -> [RouteTrackRecords.Route: TrackRecordWindow] {
        let (bus, parent) = (bus, requestContext())
        return await trackRecords.windows(for: routes) { request in
            try await bus.request(request, timeout: Self.trackRecordDeadline, parent: parent)
        }
    }


    func airports(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var lookup = AirportAutocompleteRequest()
        lookup.query = String(request.uri.queryParameters.get("q") ?? "")
        guard lookup.query.count <= 64 else { throw Problem.badRequest("invalid-query", "q: at most 64 characters", field: "q") }
        lookup.limit = Int32(try request.integer("limit", in: 1...50) ?? 10)
        return try ProtoJSON.response(try await call(lookup), to: request)
    }

    func search(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var search = try await ProtoJSON.decode(SearchFlightsRequest.self, from: request, context: context)
        search.userID = try context.userID()
        // A traveller's search is always a person's: the watchlist and sweep purposes are the services' own.
        search.purpose = .userSearch
        var answer = try await call(search)
        if !answer.offers.isEmpty, let (currency, table) = try await approximation(for: search.userID) { answer.approximate(in: currency, with: table) }
        return try ProtoJSON.response(answer, to: request)
    }

    /// "≈ in the traveller's currency" (issue #60): the user's chosen currency and the rates to convert
    /// into it; nil when they chose none or no rates are known (an answer is never refused for want of them).
    func approximation(for userID: String) async throws -> (String, ExchangeRateTable)? {
        let currency = try await currencies.currency(of: userID) {
            var user = GetUserRequest()
            user.userID = userID
            return try await call(user).user.currency
        }
        guard !currency.isEmpty else { return nil }
        return await rates.current(bus, parent: requestContext()).map { (currency, $0) }
    }
}
