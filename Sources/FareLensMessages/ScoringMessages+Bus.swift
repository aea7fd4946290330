public import FareLensBus

/// Scoring service messages on the bus: requests at address `scoring`, events on `scoring.*` topics (SPEC §2).
extension ServiceAddress {
    /// The scoring service: DealScore, price history, buy-or-wait forecasts, deal feed.
    public static let scoring: ServiceAddress = "scoring"
}

extension ScoreFareRequest: BusRequest {
    public typealias Response = ScoreFareResponse
    public static var address: ServiceAddress { .scoring }
}
extension ScoreFareResponse: BusMessage {}

extension PriceHistoryRequest: BusRequest {
    public typealias Response = PriceHistoryResponse
    public static var address: ServiceAddress { .scoring }
}
extension PriceHistoryResponse: BusMessage {}

extension FareForecastRequest: BusRequest {
    public typealias Response = FareForecastResponse
    public static var address: ServiceAddress { .scoring }
}
extension FareForecastResponse: BusMessage {}

extension DealFeedRequest: BusRequest {
    public typealias Response = DealFeedResponse
    public static var address: ServiceAddress { .scoring }
}
extension DealFeedResponse: BusMessage {}

extension DealScored: BusEvent {
    public static let topic = Topic("scoring.deal-scored")
}
/// Durable: it is pushed at once to users whose preferred airports match; losing it loses their alert.
extension ExceptionalDeal: BusEvent {
    public static let topic = Topic("scoring.exceptional-deal", durable: true)
}
