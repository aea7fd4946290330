import FareLensBus
import FareLensMessages
import Hummingbird

/// What the app asks about one route, `/v1/routes/{route}/…` (docs/api.md):
/// buy or wait (docs/forecast.md) and the route's track record (docs/analytics.md).
extension GatewayAPI {
    /// `GET /v1/routes/{route}/forecast?month=YYYY-MM&cabin`, the route written
    /// `ORIGIN-DESTINATION`: likely to rise, likely to fall or no clear
    /// signal over the next week, with the forecasts' measured accuracy.
    func fareForecast(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var forecast = FareForecastRequest()
        (forecast.origin, forecast.destination) = try Self.routePath(context)
        if let cabin = try Self.cabinQuery(request) { forecast.cabin = cabin }
        guard let month = try Self.monthQuery(request) else {
            throw Problem.badRequest("invalid-query", "month: required, the departure month as YYYY-MM", field: "month")
        }
        (forecast.departureYear, forecast.departureMonth) = month
        return try ProtoJSON.response(try await call(forecast), to: request, cacheable: true)
    }

    /// `GET /v1/routes/{route}/track-record`: the alerts sent on the route
    /// and those the re-check stopped, over 7, 30 and 90 days.
    func routeTrackRecord(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        var record = RouteTrackRecordRequest()
        (record.origin, record.destination) = try Self.routePath(context)
        return try ProtoJSON.response(try await call(record), to: request, cacheable: true)
    }

    /// The `{route}` path segment, `ORIGIN-DESTINATION`; 400 naming it otherwise.
    static func routePath(_ context: GatewayRequestContext) throws -> (origin: String, destination: String) {
        let route = context.parameters.get("route") ?? ""
        let codes = route.split(separator: "-", omittingEmptySubsequences: false)
        guard codes.count == 2, !codes[0].isEmpty, !codes[1].isEmpty, route.count <= 16 else {
            throw Problem.badRequest("invalid-path", "route: '\(route)' is not ORIGIN-DESTINATION, e.g. LON-BCN", field: "route")
        }
        return (String(codes[0]), String(codes[1]))
    }

    /// The `cabin` query parameter (nil when absent); 400 naming it when it is not a cabin.
    static func cabinQuery(_ request: Request) throws -> Cabin? {
        guard let cabin = request.uri.queryParameters.get("cabin") else { return nil }
        guard let value = Self.enumField(PriceHistoryRequest.self, "cabin", String(cabin))?.cabin, value != .unspecified else {
            throw Problem.badRequest("invalid-query", "cabin: '\(cabin)' is not ECONOMY, PREMIUM_ECONOMY, BUSINESS or FIRST", field: "cabin")
        }
        return value
    }

    /// The `month` query parameter, `YYYY-MM` with a year 2000–2100 (nil when absent); 400 naming it otherwise.
    static func monthQuery(_ request: Request) throws -> (year: Int32, month: Int32)? {
        guard let month = request.uri.queryParameters.get("month") else { return nil }
        let parts = month.split(separator: "-")
        guard parts.count == 2, let year = Int32(parts[0]), let number = Int32(parts[1]), (2000...2100).contains(year), (1...12).contains(number) else {
            throw Problem.badRequest("invalid-query", "month: '\(month)' is not YYYY-MM", field: "month")
        }
        return (year, number)
    }
}
