public import FareLensMessages

/// A source of fares: the simulated market, Amadeus, Travelpayouts.
///
/// A provider answers one ``FareQuery`` with offers whose `provider` field
/// is its ``name``; the search engine merges, de-duplicates and sorts them.
/// Providers never log or return secrets.
public protocol FareProvider: Sendable {
    /// Its name in offers, quota and metrics, e.g. "amadeus".
    var name: String { get }
    /// Whether calls count against a monthly quota (the simulated market does not).
    var isLive: Bool { get }
    /// Offers for `query`, in any order.
    ///
    /// - Parameter deadline: when the request being answered stops waiting;
    ///   a live provider waits at most the smaller of its own timeout
    ///   (`search.<provider>.timeoutMs`) and the time left until it, and
    ///   every provider honours task cancellation. Nil: its timeout alone.
    /// - Throws: ``ProviderError`` naming what failed (never a secret).
    func offers(for query: FareQuery, deadline: ContinuousClock.Instant?) async throws(ProviderError) -> [FlightOffer]
}

extension FareProvider {
    /// Offers for `query` with no request deadline (the provider's timeout alone).
    public func offers(for query: FareQuery) async throws(ProviderError) -> [FlightOffer] {
        try await offers(for: query, deadline: nil)
    }
}

/// Why a provider call failed. `code` is short and stable (it goes into
/// `ProviderCalled.error_code`); `message` is one line without secrets.
public struct ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: String, Sendable {
        case authentication = "auth"
        case rateLimited = "http-429"
        case server = "http-5xx"
        case badStatus = "http-status"
        case malformedResponse = "malformed-response"
        case timeout = "timeout"
        case transport = "transport"
        case notConfigured = "not-configured"
    }

    private let kind: Code
    /// The provider that failed.
    public let provider: String
    /// One line, no secrets.
    public let message: String
    /// For `http-429`: how long the provider asked us to wait, if it said.
    public let retryAfter: Duration?

    private init(_ kind: Code, _ provider: String, _ message: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.provider = provider
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The stable short code, e.g. "timeout", "http-429", "auth".
    public var code: String { kind.rawValue }

    /// Credentials refused (HTTP 401/403, or the token request failed).
    public static func authentication(_ provider: String, _ message: String) -> ProviderError { .init(.authentication, provider, message) }
    /// HTTP 429, with the Retry-After the provider sent.
    public static func rateLimited(_ provider: String, retryAfter: Duration?) -> ProviderError {
        .init(.rateLimited, provider, "rate limited (HTTP 429)" + (retryAfter.map { ", retry after \($0.components.seconds) s" } ?? ""), retryAfter: retryAfter)
    }
    /// HTTP 5xx.
    public static func server(_ provider: String, status: Int) -> ProviderError { .init(.server, provider, "server error (HTTP \(status))") }
    /// Any other unexpected HTTP status.
    public static func badStatus(_ provider: String, status: Int) -> ProviderError { .init(.badStatus, provider, "unexpected HTTP \(status)") }
    /// The body is not the JSON the provider documents.
    public static func malformedResponse(_ provider: String, _ message: String) -> ProviderError { .init(.malformedResponse, provider, "malformed response: \(message)") }
    /// No answer within the configured timeout.
    public static func timeout(_ provider: String, after limit: Duration) -> ProviderError { .init(.timeout, provider, "no answer within \(limit)") }
    /// Connection-level failure (refused, reset, DNS).
    public static func transport(_ provider: String, _ message: String) -> ProviderError { .init(.transport, provider, message) }
    /// Missing base URL or credentials.
    public static func notConfigured(_ provider: String, missing key: String) -> ProviderError { .init(.notConfigured, provider, "not configured: \(key) is missing") }
    /// A configuration value that is present but unusable (the value itself is
    /// never repeated: it may be a secret). Same code as ``notConfigured(_:missing:)``.
    public static func invalidConfiguration(_ provider: String, key: String, expected: String) -> ProviderError {
        .init(.notConfigured, provider, "not configured: \(key) must be \(expected)")
    }

    public var description: String { "\(provider): \(message)" }
}
