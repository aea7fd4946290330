public import FareLensServiceKit

/// The search service's errors, as its callers see them (`BusError` kind
/// `remote` with ``code``). Each message names the field or resource at fault.
public typealias SearchError = ServiceFailure<SearchErrorKind>

/// The kinds of ``SearchError``, each with its code.
public enum SearchErrorKind: String, ServiceFailureKind {
    case invalidField = "invalid-field"
    case unknownAirport = "unknown-airport"
    case unknownOffer = "unknown-offer"
    case noFaresAvailable = "no-fares-available"
    case cancelled = "cancelled"
    case stopping = "stopping"
    case unknownCurrency = "unknown-currency"

    public var code: String { rawValue }
}

extension ServiceFailure where Kind == SearchErrorKind {
    /// A field is missing or out of range; `field` is its name in the request.
    public static func invalidField(_ field: String, _ reason: String) -> SearchError {
        .init(.invalidField, field: field, "\(field): \(reason)")
    }
    /// A code is in neither the airport nor the metro directory (never guessed).
    public static func unknownAirport(_ code: String, field: String) -> SearchError {
        .init(.unknownAirport, field: field, "\(field): '\(code)' is not a known IATA airport or metro code")
    }
    /// The exchange rates have none for `currency` (docs/search.md, "Exchange rates").
    public static func unknownCurrency(_ currency: String, _ message: String) -> SearchError {
        .init(.unknownCurrency, field: "currency", message)
    }
    /// An offer id that is unknown or no longer cached.
    public static func unknownOffer(_ id: String) -> SearchError {
        .init(.unknownOffer, field: "offer_id", "offer_id: '\(id)' is unknown or its search has expired; search again")
    }
    /// Every provider failed and nothing at most 7 days old is cached.
    public static func noFaresAvailable(_ reasons: [String]) -> SearchError {
        .init(.noFaresAvailable, "no provider could answer and nothing is cached: " + reasons.joined(separator: "; "))
    }
    /// The caller gave up (cancelled, or released at its deadline) before the answer came.
    public static var cancelled: SearchError { .init(.cancelled, "the search was cancelled by its caller before the providers answered") }
    /// The service is shutting down and takes no more searches.
    public static var stopping: SearchError { .init(.stopping, "the search service is shutting down") }
}
