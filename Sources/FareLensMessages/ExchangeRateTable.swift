public import Foundation

/// Why an amount could not be converted.
public struct ExchangeRateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds, each with its stable code.
    public enum Code: String, Sendable {
        /// The table has no rate for the currency (not an ECB reference currency, or not an ISO 4217 code).
        case unknownCurrency = "unknown-currency"
        /// A rate that is not a positive number, or a table with no date.
        case invalidRates = "invalid-rates"
        /// The converted amount does not fit in minor units.
        case outOfRange = "amount-out-of-range"
    }

    public let code: Code
    /// The currency at fault, when one is.
    public let currency: String?
    public let message: String

    public static func unknownCurrency(_ currency: String) -> ExchangeRateError {
        ExchangeRateError(code: .unknownCurrency, currency: currency, message: "no exchange rate for '\(currency)' (the ECB's reference currencies and EUR)")
    }

    public static func invalidRates(_ reason: String) -> ExchangeRateError {
        ExchangeRateError(code: .invalidRates, currency: nil, message: "exchange rates: \(reason)")
    }

    public var description: String { message }
}

/// One day's reference rates, as units of each currency per euro (the
/// ECB's publication: docs/search.md, "Exchange rates"), and the conversion
/// of integer minor units through them.
///
/// Conversion goes through the euro (`amount / per-euro(from) × per-euro(to)`)
/// in `Decimal` (38 significant digits), then rounds **half to even** to the
/// target currency's minor units (ISO 4217's exponent: 2 for EUR, 0 for JPY,
/// 3 for KWD): 0.125 EUR-worth of cents becomes 0.12, 0.135 becomes 0.14.
public struct ExchangeRateTable: Sendable, Equatable {
    /// The day the rates are for (the ECB publishes on TARGET working days, around 16:00 CET).
    public let date: CalendarDate
    /// Units per euro; EUR itself is 1 and need not be listed.
    public let perEuro: [String: Decimal]
    /// Where the rates came from (the URL fetched, or the shipped snapshot).
    public let source: String

    /// A table; every rate must be positive and every code three upper-case letters.
    public init(date: CalendarDate, perEuro: [String: Decimal], source: String) throws(ExchangeRateError) {
        for (code, rate) in perEuro {
            guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isUppercase }) else { throw .invalidRates("'\(code)' is not a currency code") }
            guard rate > 0, rate.isFinite else { throw .invalidRates("\(code)'s rate \(rate) is not a positive number") }
        }
        guard !perEuro.isEmpty else { throw .invalidRates("no rates") }
        self.date = date
        self.perEuro = perEuro
        self.source = source
    }

    /// The currencies the table converts between, EUR included, sorted.
    public var currencies: [String] { (Array(perEuro.keys) + (perEuro["EUR"] == nil ? ["EUR"] : [])).sorted() }

    /// Units of `to` one unit of `from` buys.
    public func rate(from: String, to: String) throws(ExchangeRateError) -> Decimal {
        try perEuro(to) / perEuro(from)
    }

    /// The rate as text for people and records: 8 decimals, half to even ("0.91299187"); conversions use it unrounded.
    public func rateText(from: String, to: String) throws(ExchangeRateError) -> String {
        var exact = try rate(from: from, to: to)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 8, .bankers)
        return "\(rounded)"
    }

    private func perEuro(_ currency: String) throws(ExchangeRateError) -> Decimal {
        if currency == "EUR" { return 1 }
        guard let rate = perEuro[currency] else { throw .unknownCurrency(currency) }
        return rate
    }

    /// `money` in `currency`, rounded half to even to its minor units.
    public func convert(_ money: Money, to currency: String) throws(ExchangeRateError) -> Money {
        guard money.currency != currency else { return money }
        let units = Decimal(money.minorUnits) / Self.power(Money.exponent(of: money.currency))
        var exact = units * (try rate(from: money.currency, to: currency)) * Self.power(Money.exponent(of: currency))
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 0, .bankers)
        let number = NSDecimalNumber(decimal: rounded)
        guard number.compare(NSDecimalNumber(value: Int64.max)) != .orderedDescending, number.compare(NSDecimalNumber(value: Int64.min)) != .orderedAscending else {
            throw ExchangeRateError(code: .outOfRange, currency: currency, message: "\(money.minorUnits) \(money.currency) in \(currency) does not fit in 64-bit minor units")
        }
        var converted = Money()
        converted.currency = currency
        converted.minorUnits = number.int64Value
        return converted
    }

    /// Weekdays from the rates' date to `day` (the ECB does not publish at weekends; its
    /// holidays are not known here, so a holiday counts as a day without rates).
    public func businessDaysOld(on day: CalendarDate) -> Int {
        guard day > date else { return 0 }
        var count = 0
        var current = date.adding(days: 1)
        while current <= day {
            // 1970-01-01 was a Thursday: Monday is 0 in (days + 3) mod 7.
            let weekday = ((current.daysSinceEpoch + 3) % 7 + 7) % 7
            if weekday < 5 { count += 1 }
            current = current.adding(days: 1)
        }
        return count
    }

    /// Older than 4 business days on `day`: reported in status and metrics, still used.
    public func isStale(on day: CalendarDate) -> Bool { businessDaysOld(on: day) > 4 }

    private static func power(_ exponent: Int) -> Decimal {
        var value: Decimal = 1
        for _ in 0..<max(0, exponent) { value *= 10 }
        return value
    }
}
