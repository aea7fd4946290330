/// A malformed row or header in the market's currency table
/// (`Resources/currencies.csv`). ``code`` names the fault; the message names
/// the line and the field.
public struct MarketCurrencyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable {
        case missingColumn = "missing-column"
        case fieldCount = "field-count"
        case invalidCurrency = "invalid-currency"
        case duplicateCurrency = "duplicate-currency"
        case invalidRate = "invalid-rate"
        case invalidCountry = "invalid-country"
        case duplicateCountry = "duplicate-country"
        case missingFallback = "missing-fallback"
    }

    private let kind: Kind
    /// What is wrong, naming the line and the field.
    public let message: String

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The fault, e.g. `invalid-rate`.
    public var code: String { kind.rawValue }
    public var description: String { "currencies.csv: \(code): \(message)" }

    /// The header lacks a column.
    static func missingColumn(_ column: String) -> Self { .init(.missingColumn, "no column '\(column)'") }
    /// A line has another field count than the header.
    static func fieldCount(_ reason: String) -> Self { .init(.fieldCount, reason) }
    /// The currency is not three upper-case letters.
    static func invalidCurrency(line: Int, _ value: String) -> Self { .init(.invalidCurrency, "line \(line): currency '\(value)' is not an ISO 4217 code") }
    /// The currency is on an earlier line too.
    static func duplicateCurrency(line: Int, _ value: String) -> Self { .init(.duplicateCurrency, "line \(line): currency '\(value)' appears twice") }
    /// The rate is not a positive number.
    static func invalidRate(line: Int, _ value: String) -> Self { .init(.invalidRate, "line \(line): per_eur '\(value)' is not a positive number") }
    /// A country is not a two-letter ISO 3166 code.
    static func invalidCountry(line: Int, _ value: String) -> Self { .init(.invalidCountry, "line \(line): countries '\(value)' is not a list of ISO 3166 alpha-2 codes") }
    /// A country is listed under two currencies.
    static func duplicateCountry(line: Int, _ value: String) -> Self { .init(.duplicateCountry, "line \(line): country '\(value)' already has a currency") }
    /// The currency used for unlisted countries has no rate.
    static func missingFallback(_ code: String) -> Self { .init(.missingFallback, "no row for the fallback currency '\(code)'") }
}
