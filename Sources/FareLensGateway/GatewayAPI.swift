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

    /// Sends `request` with the bus's deadline; a bus error becomes its problem.
    func call<R: BusRequest>(_ request: R) async throws -> R.Response where R.Response: Sendable {
        let parent = RequestContext(deadline: .now + bus.configuration.defaultDeadline, traceID: RequestTrace.current ?? .random(), isAdmin: false)
        do {
            return try await bus.request(request, parent: parent)
        } catch {
            throw Problem.from(error)
        }
    }

    /// Adds every operation to `router`.
    func register(on router: Router<GatewayRequestContext>, authentication: AuthenticationMiddleware) {
        let auth = router.group("v1/auth")
        auth.post("signup") { request, context in try await signUp(request, context) }
        auth.post("signin") { request, context in try await signIn(request, context) }
        auth.post("refresh") { request, context in try await refresh(request, context) }
        auth.post("signout") { request, context in try await signOut(request, context) }
        auth.post("apple") { request, context in try await signInWithApple(request, context) }

        let me = router.group("v1/me").add(middleware: authentication)
        me.get { request, context in try await profile(request, context) }
        me.patch { request, context in try await updateProfile(request, context) }
        me.delete { request, context in try await deleteAccount(request, context) }
        me.get("entitlements") { request, context in try await entitlements(request, context) }
        me.get("watchlists") { request, context in try await listWatchlists(request, context) }
        me.post("watchlists") { request, context in try await createWatchlist(request, context) }
        me.get("watchlists/:id") { request, context in try await watchlist(request, context) }
        me.patch("watchlists/:id") { request, context in try await updateWatchlist(request, context) }
        me.delete("watchlists/:id") { request, context in try await deleteWatchlist(request, context) }
        me.post("watchlists/:id/check") { request, context in try await checkWatchlist(request, context) }
        me.get("deals") { request, context in try await deals(request, context) }
        me.get("alerts") { request, context in try await alertHistory(request, context) }
        me.get("alerts/settings") { request, context in try await alertSettings(request, context) }
        me.post("alerts/mutes") { request, context in try await muteRoute(request, context) }
        me.delete("alerts/mutes/:route") { request, context in try await unmuteRoute(request, context) }
        me.put("alerts/pause") { request, context in try await pauseAlerts(request, context) }
        me.delete("alerts/pause") { request, context in try await resumeAlerts(request, context) }
        me.post("events") { request, context in try await recordEvents(request, context) }
        me.put("analytics") { request, context in try await setAnalyticsOptOut(request, context) }
        me.get("export") { request, context in try await exportMyData(request, context) }

        let open = router.group("v1").add(middleware: authentication)
        open.get("airports") { request, context in try await airports(request, context) }
        open.post("search") { request, context in try await search(request, context) }
        open.get("prices/history") { request, context in try await priceHistory(request, context) }
        open.post("score") { request, context in try await explainScore(request, context) }
        open.get("offers/:offer/booking-options") { request, context in try await bookingOptions(request, context) }
        // The click-out carries its own signed claim: a browser opens it without a bearer token.
        router.get("v1/book/:offer") { request, context in try await clickOut(request, context) }
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
