public import FareLensServiceKit

/// What the watchlist service answers when it cannot do what was asked: a
/// stable code (the `remote_code` its callers see) and a message naming the
/// field or watchlist at fault. Codes are listed in `Protos/watchlist.proto`.
public typealias WatchlistError = ServiceFailure<WatchlistErrorKind>

/// The kinds of ``WatchlistError``, each with its code.
public enum WatchlistErrorKind: ServiceFailureKind {
    case invalidField
    case unknownAirport
    case notFound
    case watchlistLimit
    case watchlistInactive
    case watchlistExists
    case unsupportedCurrency
    case unknownUser
    case subscriptionUnavailable
    case searchUnavailable
    case storage
    /// A code another service answered, passed through as it is.
    case passedThrough(String)

    public var code: String {
        switch self {
        case .invalidField: "invalid-field"
        case .unknownAirport: "unknown-airport"
        case .notFound: "not-found"
        case .watchlistLimit: "watchlist-limit"
        case .watchlistInactive: "watchlist-inactive"
        case .watchlistExists: "watchlist-exists"
        case .unsupportedCurrency: "unsupported-currency"
        case .unknownUser: "unknown-user"
        case .subscriptionUnavailable: "subscription-unavailable"
        case .searchUnavailable: "search-unavailable"
        case .storage: "storage"
        case .passedThrough(let code): code
        }
    }
}

extension ServiceFailure where Kind == WatchlistErrorKind {
    /// A threshold in a currency the exchange rates cannot convert the
    /// route's fares into: it could never be compared.
    public static func unsupportedCurrency(_ given: String, origin: String, pricedIn: String) -> WatchlistError {
        .init(.unsupportedCurrency, field: "price_threshold.currency",
              "price_threshold.currency: fares from \(origin) are priced in \(pricedIn), and the exchange rates (the ECB's reference currencies) cannot convert them into \(given); give the threshold in \(pricedIn) or a currency the rates list")
    }
    /// A field is missing or out of range; `field` is its name in the request.
    public static func invalidField(_ field: String, _ reason: String) -> WatchlistError {
        .init(.invalidField, field: field, "\(field): \(reason)")
    }
    /// The directory knows no airport or metro with this code.
    public static func unknownAirport(_ code: String, field: String) -> WatchlistError {
        .init(.unknownAirport, field: field, "\(field): '\(code)' is not a known IATA airport or metro code")
    }
    /// No such watchlist for this user (another user's is not found either).
    public static func notFound(_ watchlistID: String) -> WatchlistError {
        .init(.notFound, field: "watchlist_id", "no watchlist '\(watchlistID)' for this user")
    }
    /// The tier allows no more active watchlists; says the limit and that Pro removes it.
    public static func watchlistLimit(_ limit: Int, tier: String) -> WatchlistError {
        .init(.watchlistLimit, "\(tier) allows \(limit) active watchlists and this user has \(limit); Pro has no limit (or deactivate one first)")
    }
    /// On-demand check of an inactive watchlist.
    public static func watchlistInactive(_ watchlistID: String) -> WatchlistError {
        .init(.watchlistInactive, field: "watchlist_id", "watchlist '\(watchlistID)' is inactive; activate it to check it")
    }
    /// The user already watches this trip (route, dates and cabin) with
    /// `existing`: a second one would check and alert the same fares twice.
    public static func watchlistExists(_ existing: String, route: String, active: Bool) -> WatchlistError {
        .init(.watchlistExists, "this user already watches \(route) on these dates in this cabin: watchlist '\(existing)'\(active ? "" : " (inactive)"); update\(active ? "" : " or activate") that one instead")
    }
    /// The subscription service does not know this user.
    public static func unknownUser(_ userID: String) -> WatchlistError {
        .init(.unknownUser, field: "user_id", "no user '\(userID)'")
    }
    /// The subscription service could not be asked.
    public static func subscriptionUnavailable(_ reason: String) -> WatchlistError {
        .init(.subscriptionUnavailable, "the user's tier cannot be checked now: \(reason)")
    }
    /// Subscription failed to answer with `cause` (kept as ``underlying``).
    public static func subscriptionUnavailable(cause: any Error) -> WatchlistError {
        .init(.subscriptionUnavailable, "the user's tier cannot be checked now: \(cause)", underlying: cause)
    }
    /// Search could not be asked, or had only stale prices.
    public static func searchUnavailable(_ reason: String) -> WatchlistError {
        .init(.searchUnavailable, "no live price now: \(reason)")
    }
    /// Search failed to answer with `cause` (kept as ``underlying``); `what`
    /// says what could not be had, "no live price now" by default.
    public static func searchUnavailable(cause: any Error, what: String = "no live price now") -> WatchlistError {
        .init(.searchUnavailable, "\(what): \(cause)", underlying: cause)
    }
    /// The service's database failed.
    public static func storage(_ reason: String) -> WatchlistError {
        .init(.storage, "storage: \(reason)")
    }
    /// The service's database failed with `error` (kept as ``underlying``).
    public static func storage(_ error: any Error) -> WatchlistError {
        .init(.storage, "storage: \(error)", underlying: error)
    }
    /// Another service's error, with its code and message unchanged.
    public static func passedThrough(code: String, message: String) -> WatchlistError {
        .init(.passedThrough(code), message)
    }
}
