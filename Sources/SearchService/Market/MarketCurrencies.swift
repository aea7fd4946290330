public import FareLensMessages
import FareLensServiceKit
import Foundation

/// The currency the simulated market prices a trip in, and the fixed rates it
/// converts its euro calibration with (`Resources/currencies.csv`; see
/// Resources/ATTRIBUTION.md and docs/search.md § Currencies).
///
/// A trip is priced where it is sold: in the currency of the outbound origin
/// airport's country, or in ``fallback`` (USD) for a country the table does
/// not list. Rates are approximate, chosen by hand, never live.
public struct MarketCurrencies: Sendable {
    /// One currency and its fixed rate.
    public struct Currency: Sendable, Hashable {
        /// ISO 4217 code, e.g. "JPY".
        public let code: String
        /// Units of this currency per euro, e.g. 180 for JPY.
        public let perEuro: Double

        /// Prices are rounded to whole units when one unit is worth less than
        /// 5 euro cents (more than 20 per euro: JPY, INR, KRW, HUF, THB …),
        /// as fare sites show them; otherwise to the currency's minor unit.
        public var roundsToWholeUnits: Bool { perEuro > 20 }

        /// Minor units per major unit (100 for USD, 1 for JPY, 1,000 for KWD).
        public var minorPerUnit: Double { pow(10, Double(Money.exponent(of: code))) }
    }

    /// The currency of countries the table does not list.
    public let fallback: Currency
    let byCountry: [String: Currency]
    let byCode: [String: Currency]

    /// Parses the table's text: columns `currency,per_eur,countries`, countries
    /// (ISO 3166 alpha-2) separated by `;`, each country under one currency.
    ///
    /// - Parameter fallback: the currency of unlisted countries; must have a row.
    /// - Throws: ``MarketCurrencyError`` naming the first malformed line.
    public init(text: String, fallback: String = "USD") throws(MarketCurrencyError) {
        let table: CSVTable
        do { table = try CSVTable(text: text, name: "currencies") } catch { throw .fieldCount(error.reason) }
        func column(_ name: String) throws(MarketCurrencyError) -> Int {
            guard let index = table.header.firstIndex(of: name) else { throw .missingColumn(name) }
            return index
        }
        let (code, rate, countries) = try (column("currency"), column("per_eur"), column("countries"))
        var byCode: [String: Currency] = [:]
        var byCountry: [String: Currency] = [:]
        for (index, row) in table.rows.enumerated() {
            let line = index + 2
            guard AirlineTable.isCode(row[code], length: 3) else { throw .invalidCurrency(line: line, row[code]) }
            guard byCode[row[code]] == nil else { throw .duplicateCurrency(line: line, row[code]) }
            guard let perEuro = Double(row[rate]), perEuro.isFinite, perEuro > 0 else { throw .invalidRate(line: line, row[rate]) }
            let currency = Currency(code: row[code], perEuro: perEuro)
            byCode[currency.code] = currency
            let list = AirlineTable.list(row[countries])
            guard list.allSatisfy({ AirlineTable.isCode($0, length: 2) }) else { throw .invalidCountry(line: line, row[countries]) }
            for country in list {
                guard byCountry[country] == nil else { throw .duplicateCountry(line: line, country) }
                byCountry[country] = currency
            }
        }
        guard let fallbackCurrency = byCode[fallback] else { throw .missingFallback(fallback) }
        self.fallback = fallbackCurrency
        self.byCode = byCode
        self.byCountry = byCountry
    }

    /// The bundled table.
    /// The bundled currency table, loaded once per process (it never changes while the process runs).
    static func bundled() throws(BundledDataError) -> MarketCurrencies { try loaded.get() }

    private static let loaded = Result { () throws(BundledDataError) -> MarketCurrencies in
        let text = try BundledData.text("currencies")
        do throws(MarketCurrencyError) { return try MarketCurrencies(text: text) } catch { throw BundledDataError(file: "currencies.csv", reason: error.description) }
    }

    /// The currency of `country` (ISO 3166 alpha-2), or ``fallback``.
    public func currency(ofCountry country: String) -> Currency {
        byCountry[country.uppercased()] ?? fallback
    }

    /// Whether the table lists `country`.
    public func lists(country: String) -> Bool { byCountry[country.uppercased()] != nil }

    /// The currency with ISO code `code`, if the table has it.
    public func currency(code: String) -> Currency? { byCode[code.uppercased()] }

    /// `euroCents` converted to `currency` and rounded as a price
    /// (``Currency/roundsToWholeUnits``); never below one rounding step.
    public func price(euroCents: Double, in currency: Currency) -> Money {
        let minor = euroCents / 100 * currency.perEuro * currency.minorPerUnit
        let step = currency.roundsToWholeUnits ? currency.minorPerUnit : 1
        let rounded = max(1, (minor / step).rounded()) * step
        return Money(minorUnits: Int64(rounded), currency: currency.code)
    }

    /// `money` back in euro cents with the same rate; nil for a currency the
    /// table lacks.
    public func euroCents(of money: Money) -> Double? {
        guard let currency = currency(code: money.currency) else { return nil }
        return Double(money.minorUnits) / currency.minorPerUnit / currency.perEuro * 100
    }
}
