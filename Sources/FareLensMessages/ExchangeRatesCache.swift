public import FareLensBus
import Foundation

/// The exchange rates a consumer converts "≈" prices with (issue #60): the
/// gateway's feed, the alerts' wording. Asked of search
/// (``ExchangeRatesRequest``) at most every ``maximumAge`` seconds and kept
/// meanwhile, so a feed page or a batch of alerts costs no extra request.
/// When search cannot be asked (within ``askLimit``) the rates kept are
/// used; with none, no price is approximated (the fares themselves are
/// never changed).
public actor ExchangeRatesCache {
    /// How long rates are kept before search is asked again (it fetches them once a day).
    public static let maximumAge: Double = 600
    /// How long one ask may take: a consumer never waits longer for a "≈".
    public static let askLimit: Duration = .seconds(1)
    private var table: ExchangeRateTable?
    private var askedAt: Double?
    private let now: @Sendable () -> Double

    /// `now` is monotonic seconds (the rate limiter's clock, or the service's).
    public init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The rates, asking `bus` when those kept are older than ``maximumAge`` (or there are none).
    public func current(_ bus: MessageBus, parent: RequestContext?) async -> ExchangeRateTable? {
        if let askedAt, now() - askedAt < Self.maximumAge { return table }
        askedAt = now()
        guard let response = try? await bus.request(ExchangeRatesRequest(), timeout: Self.askLimit, parent: parent),
              let date = CalendarDate(iso: response.date) else { return table }
        let rates = response.ratesPerEuro.compactMapValues { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        if let fresh = try? ExchangeRateTable(date: date, perEuro: rates, source: response.source) { table = fresh }
        return table
    }
}

extension DealFeedResponse {
    /// Each item's price also in `currency` (`approximate_price`), when the rates convert it and it is not already in it.
    public mutating func approximate(in currency: String, with rates: ExchangeRateTable) {
        for index in items.indices where items[index].deal.price.currency != currency {
            guard let converted = try? rates.convert(items[index].deal.price, to: currency) else { continue }
            items[index].approximatePrice = converted
            items[index].approximateRateDate = rates.date.description
        }
    }
}

extension SearchFlightsResponse {
    /// Each offer's price also in `currency` (`approximate_price`), when the rates convert it and it is not already in it.
    public mutating func approximate(in currency: String, with rates: ExchangeRateTable) {
        for index in offers.indices where offers[index].price.currency != currency {
            guard let converted = try? rates.convert(offers[index].price, to: currency) else { continue }
            offers[index].approximatePrice = converted
            offers[index].approximateRateDate = rates.date.description
        }
    }
}
