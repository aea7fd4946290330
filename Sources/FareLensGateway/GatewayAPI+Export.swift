import FareLensBus
import FareLensMessages
import Foundation
import Hummingbird

/// `GET /v1/me/export`: what the services hold about the user, as one JSON
/// document (account and entitlements, every watchlist, alert settings and
/// the latest 500 alert decisions). Analytics keeps only pseudonymised
/// events, which cannot be traced back to a user from here.
extension GatewayAPI {
    func exportMyData(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let userID = try context.userID()
        var user = GetUserRequest()
        user.userID = userID
        var watchlists = ListWatchlistsRequest()
        watchlists.userID = userID
        watchlists.includeInactive = true
        var settings = AlertSettingsRequest()
        settings.userID = userID
        var alerts = AlertHistoryRequest()
        alerts.userID = userID
        alerts.limit = 500
        let json = ProtoJSONWithDefaults.fareLens
        let parts = [
            ("account", try json.text(of: try await call(user))),
            ("watchlists", try json.text(of: try await call(watchlists))),
            ("alert_settings", try json.text(of: try await call(settings))),
            ("alert_history", try json.text(of: try await call(alerts))),
        ]
        let exportedAt = Int64(now().timeIntervalSince1970 * 1000)
        let body = "{\"exported_at_unix_ms\":\"\(exportedAt)\"," + parts.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
        var headers = HTTPFields()
        headers[.contentDisposition] = "attachment; filename=\"farelens-\(userID).json\""
        headers[.cacheControl] = "no-store"
        return ProtoJSON.raw(body, to: request, headers: headers)
    }
}
