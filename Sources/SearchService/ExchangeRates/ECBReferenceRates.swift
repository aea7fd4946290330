import FareLensMessages
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The ECB's daily reference-rate file (`eurofxref-daily.xml`): a `Cube`
/// with the day's `time` holding one `Cube currency='USD' rate='1.0953'`
/// per currency. Read with Foundation's `XMLParser` (libxml2), not by hand.
enum ECBReferenceRates {
    /// The table in `data`; `source` says where it came from.
    ///
    /// - Throws: ``ExchangeRateError`` `invalid-rates` for a document that is
    ///   not XML, has no dated `Cube`, a rate that is not a number, or no rates.
    static func parse(_ data: Data, source: String) throws(ExchangeRateError) -> ExchangeRateTable {
        let reader = CubeReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse() else {
            throw .invalidRates("\(source) is not the ECB's XML (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "unreadable"))")
        }
        if let problem = reader.problem { throw .invalidRates("\(source): \(problem)") }
        guard let time = reader.time, let date = CalendarDate(iso: time) else { throw .invalidRates("\(source) has no dated Cube (time='YYYY-MM-DD')") }
        return try ExchangeRateTable(date: date, perEuro: reader.rates, source: source)
    }

    /// The snapshot shipped in the service's resources (Resources/exchange-rates/README.md).
    static func snapshot() throws -> ExchangeRateTable {
        guard let url = Bundle.module.url(forResource: "eurofxref-daily", withExtension: "xml", subdirectory: "Resources/exchange-rates") else {
            throw ExchangeRateError.invalidRates("the shipped snapshot is missing from the search service's resources")
        }
        return try parse(try Data(contentsOf: url), source: "snapshot (ECB, Resources/exchange-rates)")
    }

    /// Collects the dated cube's rates.
    private final class CubeReader: NSObject, XMLParserDelegate {
        var time: String?
        var rates: [String: Decimal] = [:]
        var problem: String?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            guard name == "Cube" else { return }
            if let time = attributes["time"] { self.time = self.time ?? time }
            guard let currency = attributes["currency"] else { return }
            guard let text = attributes["rate"], let rate = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), rate > 0 else {
                problem = problem ?? "the rate of \(currency) is '\(attributes["rate"] ?? "")', not a positive number"
                return
            }
            rates[currency] = rate
        }
    }
}
