import Foundation
import Testing

@Suite("Gateway: the OpenAPI document")
struct GatewaySpecTests {
    /// The committed document, the one the gateway serves.
    static let specPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/FareLensGateway/Resources/openapi.yaml").path

    @Test("is a valid OpenAPI 3.1 document (openapi-spec-validator, in the venv ops/install-deps.sh keeps)")
    func validates() async throws {
        let (status, text) = try await PythonTools.run(["-m", "openapi_spec_validator", Self.specPath], limit: .seconds(120))
        #expect(status == 0, "\(text)")
        #expect(text.contains("OK"), "\(text)")
    }

    @Test("names every operation the gateway routes, each with an operationId, a summary and its error responses")
    func everyRouteIsDocumented() throws {
        let spec = try String(contentsOfFile: Self.specPath, encoding: .utf8)
        let routes = [
            "/v1/auth/signup:", "/v1/auth/signin:", "/v1/auth/refresh:", "/v1/auth/signout:", "/v1/auth/apple:", "/v1/me:", "/v1/me/entitlements:",
            "/v1/me/watchlists:", "/v1/me/watchlists/{watchlist_id}:", "/v1/me/watchlists/{watchlist_id}/check:", "/v1/me/deals:",
            "/v1/me/alerts:", "/v1/me/alerts/settings:", "/v1/airports:", "/v1/search:", "/v1/me/alerts/mutes:", "/v1/me/alerts/mutes/{route}:",
            "/v1/me/alerts/pause:", "/v1/me/events:", "/v1/me/analytics:", "/v1/me/export:", "/v1/prices/history:", "/v1/routes/{route}/forecast:", "/v1/routes/{route}/track-record:", "/v1/score:",
            "/v1/offers/{offer_id}/booking-options:", "/v1/book/{offer_id}:", "/v1/me/devices:", "/v1/me/devices/{token}:",
            "/v1/me/purchases:", "/v1/appstore/notifications:", "/v1/affiliate/postback:",
        ]
        for route in routes { #expect(spec.contains("  \(route)\n"), "\(route) is not in the document") }
        let operations = spec.components(separatedBy: "operationId:").count - 1
        #expect(operations == 42, "operations: \(operations)")
        #expect(spec.components(separatedBy: "summary:").count - 1 >= operations)
    }
}
