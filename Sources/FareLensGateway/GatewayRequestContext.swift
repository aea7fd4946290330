import Hummingbird
import NIOCore

/// What one HTTP request carries through the gateway's middleware to its
/// route: the client's address (for sign-in limits), and once its access
/// token is verified, the user it acts for.
struct GatewayRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address, without the port.
    let clientAddress: String
    /// Set by ``AuthenticationMiddleware``; routes under `/v1/me` read it, never the request.
    var session: AccessClaims?
    /// Bodies larger than this are refused with 413 (`gateway.maxBodyBytes`).
    var bodyLimit: Int

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        session = nil
        bodyLimit = 64 * 1024
    }

    var maxUploadSize: Int { bodyLimit }

    /// The signed-in user's id; a route that needs one is behind the middleware, so it is there.
    func userID() throws -> String {
        guard let session else { throw Problem.unauthorized("missing-token", "this operation needs a bearer access token") }
        return session.sub.value
    }
}
