public import AsyncHTTPClient
public import FareLensMessages
public import FareLensServiceKit
import NIOHTTP1

/// Live fares from Amadeus Self-Service *Flight Offers Search*
/// (`GET /v2/shopping/flight-offers`), authorised by an OAuth2
/// client-credentials token (`POST /v1/security/oauth2/token`).
///
/// The token is cached until shortly before it expires; when a search is
/// answered 401 the token is dropped, fetched again once, and the search is
/// retried once. Prices are the offers' `grandTotal` for all travellers,
/// parsed exactly from the decimal string. Amadeus gives no booking link,
/// so `booking_link` is empty. Neither the client secret nor the token
/// appears in any error.
public struct AmadeusProvider: FareProvider {
    /// "amadeus", in offers, quota and errors.
    public static let providerName = "amadeus"

    public var name: String { Self.providerName }
    public var isLive: Bool { true }

    let settings: AmadeusSettings
    let timeZone: @Sendable (String) -> String?
    let http: ProviderHTTP
    let tokens: AmadeusTokenCache

    /// Creates the provider.
    ///
    /// - Parameters:
    ///   - settings: base URL, timeout and credentials.
    ///   - timeZone: IATA airport code → IANA zone, nil when unknown (the
    ///     segment's zone is then left empty).
    ///   - transport: real time, which measures the token's lifetime (inject a manual one in tests);
    ///     never the business clock, which the demo runs days ahead.
    ///   - client: the HTTP client; ``LiveProviderClient/shared`` by default.
    public init(
        settings: AmadeusSettings,
        timeZone: @escaping @Sendable (String) -> String?,
        transport: TransportClock = .system,
        client: HTTPClient = LiveProviderClient.shared
    ) {
        let http = ProviderHTTP(
            provider: Self.providerName, client: client, timeout: settings.endpoint.timeout,
            secrets: [settings.clientSecret]
        )
        self.settings = settings
        self.timeZone = timeZone
        self.http = http
        self.tokens = AmadeusTokenCache(clock: transport) { () async throws(ProviderError) -> AmadeusTokenCache.Grant in
            try await Self.fetchToken(settings: settings, http: http)
        }
    }

    public func offers(for query: FareQuery, deadline: ContinuousClock.Instant?) async throws(ProviderError) -> [FlightOffer] {
        try settings.validate()
        var token = try await tokens.token()
        var response = try await http.exchange(searchRequest(query, token: token), deadline: deadline)
        if response.status == 401 {
            await tokens.invalidate(token)
            token = try await tokens.token()
            response = try await http.exchange(searchRequest(query, token: token), deadline: deadline)
        }
        try http.requireSuccess(response)
        let answer = try http.decode(AmadeusSearchResponse.self, from: response.body)
        let cabin = query.cabin == .unspecified ? Cabin.economy : query.cabin
        var offers: [FlightOffer] = []
        for (index, offer) in answer.data.enumerated() {
            do throws(AmadeusMappingError) {
                offers.append(try offer.flightOffer(cabin: cabin, timeZone: timeZone))
            } catch {
                throw .malformedResponse(name, "data[\(index)].\(error.path)")
            }
        }
        return offers
    }

    /// The search request, with its query parameters as Amadeus documents them.
    /// Zero children or infants are left out rather than sent as 0.
    func searchRequest(_ query: FareQuery, token: String) -> HTTPClientRequest {
        var items: [(String, String)] = [
            ("originLocationCode", query.origin),
            ("destinationLocationCode", query.destination),
            ("departureDate", query.departureDate.description),
        ]
        if let returnDate = query.returnDate { items.append(("returnDate", returnDate.description)) }
        items.append(("adults", String(query.adults)))
        if query.children > 0 { items.append(("children", String(query.children))) }
        if query.infants > 0 { items.append(("infants", String(query.infants))) }
        items += [
            ("travelClass", Self.travelClass(query.cabin)),
            ("nonStop", query.nonstopOnly ? "true" : "false"),
            ("currencyCode", query.currency.uppercased()),
            ("max", String(settings.maxOffers)),
        ]
        return ProviderHTTP.request(
            baseURL: settings.endpoint.baseURL, path: "/v2/shopping/flight-offers", query: items,
            headers: [("Authorization", "Bearer \(token)")]
        )
    }

    /// Amadeus's `travelClass` for a cabin (unspecified means economy).
    static func travelClass(_ cabin: Cabin) -> String {
        switch cabin {
        case .premiumEconomy: "PREMIUM_ECONOMY"
        case .business: "BUSINESS"
        case .first: "FIRST"
        default: "ECONOMY"
        }
    }

    private static func fetchToken(settings: AmadeusSettings, http: ProviderHTTP) async throws(ProviderError) -> AmadeusTokenCache.Grant {
        let form = [
            ("grant_type", "client_credentials"),
            ("client_id", settings.clientID),
            ("client_secret", settings.clientSecret),
        ].map { "\(ProviderHTTP.escape($0.0))=\(ProviderHTTP.escape($0.1))" }.joined(separator: "&")
        var request = ProviderHTTP.request(.POST, baseURL: settings.endpoint.baseURL, path: "/v1/security/oauth2/token")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(Array(form.utf8))
        let response = try await http.exchange(request)
        if response.status == 401 || response.status == 403 {
            throw .authentication(providerName, "token request refused (HTTP \(response.status))")
        }
        try http.requireSuccess(response)
        let grant = try http.decode(AmadeusTokenResponse.self, from: response.body)
        guard !grant.accessToken.isEmpty else { throw .malformedResponse(providerName, "empty access_token") }
        return (grant.accessToken, grant.expiresIn)
    }
}
