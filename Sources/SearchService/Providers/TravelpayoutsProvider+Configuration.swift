public import AsyncHTTPClient
public import Configuration

/// How to reach the Travelpayouts Data API and with which token.
///
/// The description and reflection never show the token.
public struct TravelpayoutsSettings: Sendable, CustomStringConvertible, CustomReflectable {
    /// Base URL and timeout (`search.travelpayouts.baseUrl`,
    /// `search.travelpayouts.timeoutMs`), normally "https://api.travelpayouts.com".
    public var endpoint: LiveProviderSettings
    /// The API token sent as `X-Access-Token` (`search.travelpayouts.token`). Never logged or shown.
    public var token: String
    /// The affiliate marker added to booking links (`search.travelpayouts.marker`); nil for none.
    public var marker: String?
    /// Most prices asked for per search (the API allows up to 1000).
    public var limit: Int

    /// Creates settings.
    public init(endpoint: LiveProviderSettings, token: String, marker: String? = nil, limit: Int = 30) {
        self.endpoint = endpoint
        self.token = token
        self.marker = marker
        self.limit = limit
    }

    public var description: String {
        "TravelpayoutsSettings(baseURL: \(endpoint.baseURL), timeout: \(endpoint.timeout), token: ***, marker: \(marker ?? "none"))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["endpoint": endpoint, "token": "***", "marker": marker as Any, "limit": limit])
    }

    /// Throws ``ProviderError/notConfigured(_:missing:)`` for an empty base URL or token.
    func validate() throws(ProviderError) {
        let name = TravelpayoutsProvider.providerName
        if endpoint.baseURL.isEmpty { throw .notConfigured(name, missing: "search.travelpayouts.baseUrl") }
        if token.isEmpty { throw .notConfigured(name, missing: "search.travelpayouts.token") }
    }
}

extension TravelpayoutsProvider {
    /// The provider from `search.travelpayouts.*`, or nil when neither
    /// `baseUrl` nor `token` is set (Travelpayouts not used). `marker` is optional.
    ///
    /// - Parameters:
    ///   - reader: configuration scoped to "search" (keys `travelpayouts.token` …).
    ///   - timeZone: IATA airport code → IANA zone, nil when unknown.
    ///   - client: the HTTP client (``LiveProviderClient/shared`` by default).
    /// - Throws: ``ProviderError`` `not-configured` naming the key that is
    ///   missing or invalid when Travelpayouts is only partly configured.
    public static func fromConfiguration(
        _ reader: ConfigReader,
        timeZone: @escaping @Sendable (String) -> String?,
        client: HTTPClient = LiveProviderClient.shared
    ) throws(ProviderError) -> TravelpayoutsProvider? {
        let section = ProviderConfigSection(reader: reader, provider: providerName)
        guard section.hasAny(of: ["baseUrl", "token"], secret: ["token"]) else { return nil }
        let settings = TravelpayoutsSettings(
            endpoint: try section.endpoint(),
            token: try section.require("token", secret: true),
            marker: section.string("marker")
        )
        return TravelpayoutsProvider(settings: settings, timeZone: timeZone, client: client)
    }
}
