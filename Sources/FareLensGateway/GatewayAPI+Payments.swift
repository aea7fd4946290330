import FareLensBus
import FareLensMessages
import Foundation
import Hummingbird

/// Money in from the App Store (docs/payments.md): its server notifications
/// and the app's signed transactions, both checked by the subscription
/// service, which holds the App Store's configuration. The app's own
/// `POST /v1/me/purchases` (a StoreKit 2 `jwsRepresentation`, "Restore
/// Purchase") is one forwarded request (``GatewayAPI/register(on:authentication:)``):
/// its appAccountToken must be the caller's, or 409 and nothing changes.
extension GatewayAPI {
    /// `POST /v1/appstore/notifications` with `{"signedPayload": "<JWS>"}`:
    /// App Store Server Notifications V2. No bearer token: trust comes from
    /// Apple's signature alone. 200 only once the notification is applied
    /// (or recorded) and committed; a 4xx for a payload that fails
    /// verification; a 503 when the subscription service is away (the App
    /// Store retries).
    func appStoreNotification(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let message = try await ProtoJSON.decode(AppStoreNotificationRequest.self, from: request, context: context)
        return try ProtoJSON.response(try await call(message), to: request)
    }
}
