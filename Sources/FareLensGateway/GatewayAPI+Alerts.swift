import FareLensBus
import FareLensMessages
import Hummingbird

/// The user's alert controls, under `/v1/me/alerts`: mute a route, pause
/// everything, and undo either (docs/api.md).
extension GatewayAPI {
    func muteRoute(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var mute = try await ProtoJSON.decode(MuteRouteRequest.self, from: request, context: context)
        mute.userID = try context.userID()
        return try ProtoJSON.response(try await call(mute), to: request)
    }

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

    func pauseAlerts(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var pause = try await ProtoJSON.decode(PauseAlertsRequest.self, from: request, context: context)
        pause.userID = try context.userID()
        return try ProtoJSON.response(try await call(pause), to: request)
    }

    func resumeAlerts(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var resume = ResumeAlertsRequest()
        resume.userID = try context.userID()
        return try ProtoJSON.response(try await call(resume), to: request)
    }
}
