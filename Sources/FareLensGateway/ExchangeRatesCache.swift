import FareLensBus
import FareLensMessages
import Foundation

/// The exchange rates the gateway converts "≈" prices with (issue #60):
/// asked of search (``ExchangeRatesRequest``) at most every
/// ``maximumAge`` seconds and kept meanwhile, so a feed page costs no extra
/// request. When search cannot be asked the rates kept are used; with none,
/// no price is approximated (the fares themselves are never changed).
actor ExchangeRatesCache {
    /// How long rates are kept before search is asked again (it fetches them once a day).
    static let maximumAge: Double = 600
    private var table: ExchangeRateTable?
    private var askedAt: Double?
    private let now: @Sendable () -> Double

    /// `now` is monotonic seconds (the rate limiter's clock).
    init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The rates, asking `bus` when those kept are older than ``maximumAge`` (or there are none).
    func current(_ bus: MessageBus, parent: RequestContext) async -> ExchangeRateTable? {
        if let askedAt, now() - askedAt < Self.maximumAge { return table }
        askedAt = now()
        guard let response = try? await bus.request(ExchangeRatesRequest(), parent: parent), let date = CalendarDate(iso: response.date) else { return table }
        let rates = response.ratesPerEuro.compactMapValues { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        if let fresh = try? ExchangeRateTable(date: date, perEuro: rates, source: response.source) { table = fresh }
        return table
    }
}

extension DealFeedResponse {
    /// Each item's price also in `currency` (`approximate_price`), when the rates convert it and it is not already in it.
    mutating func approximate(in currency: String, with rates: ExchangeRateTable) {
        for index in items.indices where items[index].deal.price.currency != currency {
            guard let converted = try? rates.convert(items[index].deal.price, to: currency) else { continue }
            items[index].approximatePrice = converted
            items[index].approximateRateDate = rates.date.description
        }
    }
}
