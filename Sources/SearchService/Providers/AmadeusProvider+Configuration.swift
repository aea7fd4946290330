public import AsyncHTTPClient
public import Configuration
public import FareLensServiceKit

/// How to reach Amadeus Self-Service and with which credentials.
///
/// The description and reflection never show the client secret.
public struct AmadeusSettings: Sendable, CustomStringConvertible, CustomReflectable {
    /// Base URL and timeout (`search.amadeus.baseUrl`, `search.amadeus.timeoutMs`);
    /// "https://test.api.amadeus.com" or "https://api.amadeus.com".
    public var endpoint: LiveProviderSettings
    /// The API key (`search.amadeus.clientId`).
    public var clientID: String
    /// The API secret (`search.amadeus.clientSecret`). Never logged or shown.
    public var clientSecret: String
    /// Most offers asked for per search (Amadeus allows 1–250).
    public var maxOffers: Int

    /// Creates settings.
    public init(endpoint: LiveProviderSettings, clientID: String, clientSecret: String, maxOffers: Int = 50) {
        self.endpoint = endpoint
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.maxOffers = maxOffers
    }

    public var description: String {
        "AmadeusSettings(baseURL: \(endpoint.baseURL), timeout: \(endpoint.timeout), clientID: \(clientID), clientSecret: ***)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["endpoint": endpoint, "clientID": clientID, "clientSecret": "***", "maxOffers": maxOffers])
    }

    /// Throws ``ProviderError/notConfigured(_:missing:)`` for an empty base URL or credential.
    func validate() throws(ProviderError) {
        if endpoint.baseURL.isEmpty { throw .notConfigured(AmadeusProvider.providerName, missing: "search.amadeus.baseUrl") }
        if clientID.isEmpty { throw .notConfigured(AmadeusProvider.providerName, missing: "search.amadeus.clientId") }
        if clientSecret.isEmpty { throw .notConfigured(AmadeusProvider.providerName, missing: "search.amadeus.clientSecret") }
    }
}

extension AmadeusProvider {
    /// The provider from `search.amadeus.*`, or nil when none of
    /// `baseUrl`, `clientId`, `clientSecret` is set (Amadeus not used).
    ///
    /// - Parameters:
    ///   - reader: configuration scoped to "search" (keys `amadeus.clientId` …).
    ///   - timeZone: IATA airport code → IANA zone, nil when unknown.
    ///   - transport: real time, which measures token lifetimes (never the business clock).
    ///   - client: the HTTP client (``LiveProviderClient/shared`` by default).
    /// - Throws: ``ProviderError`` `not-configured` naming the key that is
    ///   missing or invalid when Amadeus is only partly configured.
    public static func fromConfiguration(
        _ reader: ConfigReader,
        timeZone: @escaping @Sendable (String) -> String?,
        transport: TransportClock = .system,
        client: HTTPClient = LiveProviderClient.shared
    ) throws(ProviderError) -> AmadeusProvider? {
        let section = ProviderConfigSection(reader: reader, provider: providerName)
        guard section.hasAny(of: ["baseUrl", "clientId", "clientSecret"], secret: ["clientSecret"]) else { return nil }
        let settings = AmadeusSettings(
            endpoint: try section.endpoint(),
            clientID: try section.require("clientId"),
            clientSecret: try section.require("clientSecret", secret: true)
        )
        return AmadeusProvider(settings: settings, timeZone: timeZone, transport: transport, client: client)
    }
}
