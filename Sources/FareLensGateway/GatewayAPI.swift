import FareLensBus
import FareLensMessages
import Foundation
import Hummingbird
import SwiftProtobuf

/// The operations of API v1 (Resources/openapi.yaml), each a translation
/// of one HTTP request into one bus request. User ids come from the access
/// token only: a body's or a path's never names the user acted for.
struct GatewayAPI: Sendable {
    let bus: MessageBus
    let keys: SessionKeys
    let settings: GatewaySettings
    /// Per client address: sign-in, sign-up, refresh.
    let signInLimiter: RateLimiter
    let metrics: GatewayMetrics
    /// Sign in with Apple's verifier; nil when `gateway.apple.bundleId` is not set.
    let apple: AppleIdentityVerifier?
    /// Real time, for access tokens.
    let now: @Sendable () -> Date
    /// The rates "≈" prices are converted with (the feed, searches).
    let rates: ExchangeRatesCache
    /// The currency each user chose, kept a minute.
    let currencies: UserCurrencies
    /// Each route's 30-day track record, kept ten minutes (the feed, the alert history).
    let trackRecords: RouteTrackRecords

    /// The context of a request the gateway makes for the app: the bus's deadline from now on the bus's clock, the HTTP request's trace.
    func requestContext() -> FareLensBus.RequestContext {
        FareLensBus.RequestContext(
            dueAt: bus.now.advanced(by: bus.configuration.defaultDeadline), traceID: RequestTrace.current ?? .random(), isAdmin: false)
    }

    /// Sends `request` with the bus's deadline; a bus error becomes its problem.
    func call<R: BusRequest>(_ request: R) async throws -> R.Response where R.Response: Sendable {
        do {
            return try await bus.request(request, parent: requestContext())
        } catch {
            throw Problem.from(error)
        }
    }

    /// The operations that are one bus request for the token's user: the
    /// request is read from the body (`fromBody`) or starts empty, its user
    /// field (`user`) is set from the token whatever the body said, and the
    /// answer is the response as JSON.
    func forward<R: BusRequest & SwiftProtobuf.Message>(
        _ type: R.Type, user: WritableKeyPath<R, String>, fromBody: Bool = false, _ request: Request, _ context: GatewayRequestContext
    ) async throws -> Response where R.Response: SwiftProtobuf.Message & Sendable {
        var message = fromBody ? try await ProtoJSON.decode(R.self, from: request, context: context) : R()
        message[keyPath: user] = try context.userID()
        return try ProtoJSON.response(try await call(message), to: request)
    }

    /// Adds every operation to `router`; returns their paths and methods.
    func register(on router: Router<GatewayRequestContext>, authentication: AuthenticationMiddleware) -> RouteCatalog {
        var catalog = RouteCatalog()
        let auth = router.group("v1/auth")
        let me = router.group("v1/me").add(middleware: authentication)
        let open = router.group("v1").add(middleware: authentication)
        func on(
            _ group: RouterGroup<GatewayRequestContext>, _ prefix: String, _ method: HTTPRequest.Method, _ path: String,
            _ handler: @escaping @Sendable (Request, GatewayRequestContext) async throws -> Response
        ) {
            group.on(RouterPath(path), method: method, use: handler)
            catalog.add(method, path.isEmpty ? prefix : prefix + "/" + path)
        }
        on(auth, "v1/auth", .post, "signup", signUp)
        on(auth, "v1/auth", .post, "signin", signIn)
        on(auth, "v1/auth", .post, "refresh", refresh)
        on(auth, "v1/auth", .post, "signout", signOut)
        on(auth, "v1/auth", .post, "apple", signInWithApple)

        on(me, "v1/me", .get, "") { try await forward(GetUserRequest.self, user: \.userID, $0, $1) }
        on(me, "v1/me", .patch, "") { request, context in
            let response = try await forward(UpdateUserRequest.self, user: \.userID, fromBody: true, request, context)
            // A new currency shows in this gateway's next answer, not a minute later.
            currencies.forget(try context.userID())
            return response
        }
        on(me, "v1/me", .delete, "", deleteAccount)
        on(me, "v1/me", .get, "entitlements") { try await forward(GetEntitlementsRequest.self, user: \.userID, $0, $1) }
        on(me, "v1/me", .get, "watchlists", listWatchlists)
        on(me, "v1/me", .post, "watchlists", createWatchlist)
        on(me, "v1/me", .get, "watchlists/:id", watchlist)
        on(me, "v1/me", .patch, "watchlists/:id", updateWatchlist)
        on(me, "v1/me", .delete, "watchlists/:id", deleteWatchlist)
        on(me, "v1/me", .post, "watchlists/:id/check", checkWatchlist)
        on(me, "v1/me", .get, "deals", deals)
        on(me, "v1/me", .get, "alerts", alertHistory)
        on(me, "v1/me", .get, "alerts/settings") { try await forward(AlertSettingsRequest.self, user: \.userID, $0, $1) }
        on(me, "v1/me", .post, "alerts/mutes") { try await forward(MuteRouteRequest.self, user: \.userID, fromBody: true, $0, $1) }
        on(me, "v1/me", .delete, "alerts/mutes/:route", unmuteRoute)
        on(me, "v1/me", .put, "alerts/pause") { try await forward(PauseAlertsRequest.self, user: \.userID, fromBody: true, $0, $1) }
        on(me, "v1/me", .delete, "alerts/pause") { try await forward(ResumeAlertsRequest.self, user: \.userID, $0, $1) }
        on(me, "v1/me", .get, "devices") { try await forward(ListDevicesRequest.self, user: \.userID, $0, $1) }
        on(me, "v1/me", .put, "devices/:token", registerDevice)
        on(me, "v1/me", .delete, "devices/:token", unregisterDevice)
        on(me, "v1/me", .post, "events", recordEvents)
        on(me, "v1/me", .put, "analytics") { try await forward(SetAnalyticsOptOutRequest.self, user: \.userID, fromBody: true, $0, $1) }
        on(me, "v1/me", .get, "export", exportMyData)
        on(me, "v1/me", .post, "purchases") { try await forward(RestorePurchaseRequest.self, user: \.userID, fromBody: true, $0, $1) }

        on(open, "v1", .get, "airports", airports)
        on(open, "v1", .post, "search", search)
        on(open, "v1", .get, "prices/history", priceHistory)
        on(open, "v1", .get, "routes/:route/forecast", fareForecast)
        on(open, "v1", .get, "routes/:route/track-record", routeTrackRecord)
        on(open, "v1", .post, "score", explainScore)
        on(open, "v1", .get, "offers/:offer/booking-options", bookingOptions)
        // Callers that are not the app: trust comes from Apple's signature, or from the network's shared secret.
        on(router.group("v1/appstore"), "v1/appstore", .post, "notifications", appStoreNotification)
        for method in [HTTPRequest.Method.get, .post] { on(router.group("v1/affiliate"), "v1/affiliate", method, "postback", affiliatePostback) }
        // The click-out carries its own signed claim: a browser opens it without a bearer token.
        router.get("v1/book/:offer", use: clickOut)
        catalog.add(.get, "v1/book/:offer")
        return catalog
    }
}

extension Request {
    /// A query parameter as a whole number in `range`; 400 naming it otherwise.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw Problem.badRequest("invalid-query", "\(name): '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return value
    }

    /// A query parameter that is `true` or `false`; 400 naming it otherwise.
    func boolean(_ name: String) throws -> Bool? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw Problem.badRequest("invalid-query", "\(name): '\(text)' is not true or false", field: name)
        }
    }
}
