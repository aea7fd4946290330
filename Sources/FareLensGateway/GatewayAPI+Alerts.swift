import FareLensBus
import FareLensMessages
import Hummingbird

/// Unmuting a route, `DELETE /v1/me/alerts/mutes/{route}` (docs/api.md):
/// the route comes from the path, so it is not a plain ``GatewayAPI/forward(_:user:fromBody:_:_:)``
/// like muting, pausing and resuming.
extension GatewayAPI {

    /// `DELETE /v1/me/alerts/mutes/{route}`, the route written `ORIGIN-DESTINATION`.
    func unmuteRoute(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let route = context.parameters.get("route") ?? ""
        let codes = route.split(separator: "-", omittingEmptySubsequences: false)
        guard codes.count == 2, !codes[0].isEmpty, !codes[1].isEmpty, route.count <= 16 else {
            throw Problem.badRequest("invalid-path", "route: '\(route)' is not ORIGIN-DESTINATION, e.g. LON-BCN", field: "route")
        }
        var unmute = UnmuteRouteRequest()
        unmute.userID = try context.userID()
        unmute.origin = String(codes[0])
        unmute.destination = String(codes[1])
        return try ProtoJSON.response(try await call(unmute), to: request)
    }


}
