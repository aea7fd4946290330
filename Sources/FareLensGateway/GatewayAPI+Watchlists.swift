import FareLensBus
import FareLensMessages
import Hummingbird

/// The signed-in user's watchlists, under `/v1/me/watchlists`. Another
/// user's watchlist id is answered 404, as an unknown one is: the watchlist
/// service scopes every request by the owner the token names.
extension GatewayAPI {
    func listWatchlists(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var list = ListWatchlistsRequest()
        list.userID = try context.userID()
        list.includeInactive = try request.boolean("include_inactive") ?? false
        return try ProtoJSON.response(try await call(list), to: request)
    }

    func createWatchlist(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var create = try await ProtoJSON.decode(CreateWatchlistRequest.self, from: request, context: context)
        create.userID = try context.userID()
        let created = try await call(create)
        var headers = HTTPFields()
        headers[.location] = "/v1/me/watchlists/\(created.watchlist.watchlistID)"
        return try ProtoJSON.response(created, to: request, status: .created, headers: headers)
    }

    func watchlist(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var get = GetWatchlistRequest()
        get.userID = try context.userID()
        get.watchlistID = try watchlistID(context)
        return try ProtoJSON.response(try await call(get), to: request)
    }

    func updateWatchlist(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var update = try await ProtoJSON.decode(UpdateWatchlistRequest.self, from: request, context: context)
        update.userID = try context.userID()
        update.watchlistID = try watchlistID(context)
        return try ProtoJSON.response(try await call(update), to: request)
    }

    func deleteWatchlist(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var delete = DeleteWatchlistRequest()
        delete.userID = try context.userID()
        delete.watchlistID = try watchlistID(context)
        _ = try await call(delete)
        return Response(status: .noContent)
    }

    func checkWatchlist(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var check = CheckWatchlistNowRequest()
        check.userID = try context.userID()
        check.watchlistID = try watchlistID(context)
        return try ProtoJSON.response(try await call(check), to: request)
    }

    private func watchlistID(_ context: GatewayRequestContext) throws -> String {
        guard let id = context.parameters.get("id"), !id.isEmpty, id.count <= 64 else { throw Problem.notFound("no such watchlist") }
        return id
    }
}
