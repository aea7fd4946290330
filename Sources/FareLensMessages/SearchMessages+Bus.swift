public import FareLensBus

/// Search service messages on the bus: requests at address `search`, events on `search.*` topics (SPEC §1).
extension ServiceAddress {
    /// The search service: airports, flight search, booking options, provider quota.
    public static let search: ServiceAddress = "search"
}

extension AirportLookupRequest: BusRequest {
    public typealias Response = AirportLookupResponse
    public static var address: ServiceAddress { .search }
}
extension AirportLookupResponse: BusMessage {}

extension AirportAutocompleteRequest: BusRequest {
    public typealias Response = AirportAutocompleteResponse
    public static var address: ServiceAddress { .search }
}
extension AirportAutocompleteResponse: BusMessage {}

extension AirportDistanceRequest: BusRequest {
    public typealias Response = AirportDistanceResponse
    public static var address: ServiceAddress { .search }
}
extension AirportDistanceResponse: BusMessage {}

extension SearchFlightsRequest: BusRequest {
    public typealias Response = SearchFlightsResponse
    public static var address: ServiceAddress { .search }
}
extension SearchFlightsResponse: BusMessage {}

extension BookingOptionsRequest: BusRequest {
    public typealias Response = BookingOptionsResponse
    public static var address: ServiceAddress { .search }
}
extension BookingOptionsResponse: BusMessage {}

extension ProviderQuotaRequest: BusRequest {
    public typealias Response = ProviderQuotaResponse
    public static var address: ServiceAddress { .search }
}
extension ProviderQuotaResponse: BusMessage {}

/// Durable (issue #4): scoring builds price history from these, and a lost
/// observation is a gap in that history; publishers wait for room instead of dropping.
extension FareObserved: BusEvent {
    public static let topic = Topic("search.fare-observed", durable: true)
}
extension QuotaWarning: BusEvent {
    public static let topic = Topic("search.quota-warning")
}
extension SearchCompleted: BusEvent {
    public static let topic = Topic("search.search-completed")
}
extension ProviderCalled: BusEvent {
    public static let topic = Topic("search.provider-called")
}

extension ExchangeRatesRequest: BusRequest {
    public typealias Response = ExchangeRatesResponse
    public static var address: ServiceAddress { .search }
}
extension ExchangeRatesResponse: BusMessage {}

extension ConvertMoneyRequest: BusRequest {
    public typealias Response = ConvertMoneyResponse
    public static var address: ServiceAddress { .search }
}
extension ConvertMoneyResponse: BusMessage {}
