import FareLensBus
import FareLensMessages
import Hummingbird

/// Unmuting a route, `DELETE /v1/me/alerts/mutes/{route}` (docs/api.md):
/// the route comes from the path, so it is not a plain ``GatewayAPI/forward(_:user:fromBody:_:_:)``
/// like muting, pausing and resuming.
extension GatewayAPI {

    /// `DELETE /v1/me/alerts/mutes/{route}`, the route written `ORIGIN-DESTINATION`.
    func unmuteRoute(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var unmute = UnmuteRouteRequest()
        (unmute.origin, unmute.destination) = try Self.routePath(context)
        unmute.userID = try context.userID()
        return try ProtoJSON.response(try await call(unmute), to: request)
    }


}
