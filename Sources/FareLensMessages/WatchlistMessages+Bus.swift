public import FareLensBus

/// Watchlist service messages on the bus: requests at address `watchlist`, events on `watchlist.*` topics (SPEC §3).
extension ServiceAddress {
    /// The watchlist service: watchlists and their checks.
    public static let watchlist: ServiceAddress = "watchlist"
}

extension CreateWatchlistRequest: BusRequest {
    public typealias Response = CreateWatchlistResponse
    public static var address: ServiceAddress { .watchlist }
}
extension CreateWatchlistResponse: BusMessage {}

extension GetWatchlistRequest: BusRequest {
    public typealias Response = GetWatchlistResponse
    public static var address: ServiceAddress { .watchlist }
}
extension GetWatchlistResponse: BusMessage {}

extension UpdateWatchlistRequest: BusRequest {
    public typealias Response = UpdateWatchlistResponse
    public static var address: ServiceAddress { .watchlist }
}
extension UpdateWatchlistResponse: BusMessage {}

extension DeleteWatchlistRequest: BusRequest {
    public typealias Response = DeleteWatchlistResponse
    public static var address: ServiceAddress { .watchlist }
}
extension DeleteWatchlistResponse: BusMessage {}

extension ListWatchlistsRequest: BusRequest {
    public typealias Response = ListWatchlistsResponse
    public static var address: ServiceAddress { .watchlist }
}
extension ListWatchlistsResponse: BusMessage {}

extension CheckWatchlistNowRequest: BusRequest {
    public typealias Response = CheckWatchlistNowResponse
    public static var address: ServiceAddress { .watchlist }
}
extension CheckWatchlistNowResponse: BusMessage {}

extension WatchedRoutesRequest: BusRequest {
    public typealias Response = WatchedRoutesResponse
    public static var address: ServiceAddress { .watchlist }
}
extension WatchedRoutesResponse: BusMessage {}

extension RouteWatchersRequest: BusRequest {
    public typealias Response = RouteWatchersResponse
    public static var address: ServiceAddress { .watchlist }
}
extension RouteWatchersResponse: BusMessage {}

/// Durable: a lost price drop is a lost alert (and a lost digest line).
extension PriceChanged: BusEvent {
    public static let topic = Topic("watchlist.price-changed", durable: true)
}
/// Durable: published once per crossing, so losing it loses the alert for good.
extension ThresholdCrossed: BusEvent {
    public static let topic = Topic("watchlist.threshold-crossed", durable: true)
}
/// Durable: search keeps the watched routes it sweeps from these events, so a lost one is a route swept wrongly for good.
extension WatchlistChanged: BusEvent {
    public static let topic = Topic("watchlist.watchlist-changed", durable: true)
}
