import Foundation

extension Money {
    /// Whether `code` (upper case) is an ISO 4217 currency code in common
    /// use, as Foundation lists them: how every service checks the currency
    /// of an amount it is given (a threshold, a price to score, a price limit).
    public static func isCurrencyCode(_ code: String) -> Bool { currencyCodes.contains(code) }

    private static let currencyCodes = Set(Locale.commonISOCurrencyCodes)
}
