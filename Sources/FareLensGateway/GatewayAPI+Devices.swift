import FareLensBus
import FareLensMessages
import Hummingbird

/// The signed-in user's phones, under `/v1/me/devices` (docs/push.md):
/// where the alerts service pushes. The token comes from the path; another
/// user's token is answered 404 on removal, as an unknown one is.
extension GatewayAPI {
    /// `PUT /v1/me/devices/{token}`: registers the device or updates its
    /// details; 201 when it is new to this user, 200 otherwise.
    func registerDevice(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var register = RegisterDeviceRequest()
        register.device = try await ProtoJSON.decode(Device.self, from: request, context: context)
        register.device.token = try deviceToken(context)
        register.userID = try context.userID()
        let registered = try await call(register)
        return try ProtoJSON.response(registered, to: request, status: registered.created ? .created : .ok)
    }

    /// `DELETE /v1/me/devices/{token}`: 204, or 404 when the user has no such device.
    func unregisterDevice(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var unregister = UnregisterDeviceRequest()
        unregister.userID = try context.userID()
        unregister.token = try deviceToken(context)
        guard try await call(unregister).wasRegistered else { throw Problem.notFound("no such device") }
        return Response(status: .noContent)
    }

    /// The path's token, refused here when it cannot be one, so that the
    /// problem names the path parameter (`token`), not the bus request's
    /// field; the alerts service checks it again and stores it lower-case.
    private func deviceToken(_ context: GatewayRequestContext) throws -> String {
        guard let token = context.parameters.get("token"), token.utf8.count == 64, token.utf8.allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }) else {
            throw Problem.badRequest("invalid-device-token", "token: an APNs device token is 64 hexadecimal digits", field: "token")
        }
        return token
    }
}
