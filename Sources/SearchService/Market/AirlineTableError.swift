/// A malformed row or header in the airline table (`Resources/airlines.csv`).
/// ``code`` names the fault; the message names the line and the field.
public struct AirlineTableError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable {
        case missingColumn = "missing-column"
        case fieldCount = "field-count"
        case invalidCode = "invalid-code"
        case duplicateCode = "duplicate-code"
        case invalidCountry = "invalid-country"
        case invalidHub = "invalid-hub"
        case missingHub = "missing-hub"
        case unknownKind = "unknown-kind"
        case unknownCabin = "unknown-cabin"
        case noEconomy = "no-economy"
        case lowCostPremiumCabin = "low-cost-premium-cabin"
    }

    private let kind: Kind
    /// What is wrong, naming the line and the field.
    public let message: String

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The fault, e.g. `invalid-hub`.
    public var code: String { kind.rawValue }
    public var description: String { "airlines.csv: \(code): \(message)" }

    /// The header lacks a column.
    static func missingColumn(_ column: String) -> Self { .init(.missingColumn, "no column '\(column)'") }
    /// A line has another field count than the header.
    static func fieldCount(_ reason: String) -> Self { .init(.fieldCount, reason) }
    /// The IATA code is not two upper-case letters or digits.
    static func invalidCode(line: Int, _ value: String) -> Self { .init(.invalidCode, "line \(line): iata '\(value)' is not a two-character airline code") }
    /// The IATA code is on an earlier line too.
    static func duplicateCode(line: Int, _ value: String) -> Self { .init(.duplicateCode, "line \(line): iata '\(value)' appears twice") }
    /// A country is not a two-letter ISO code.
    static func invalidCountry(line: Int, _ value: String) -> Self { .init(.invalidCountry, "line \(line): countries '\(value)' is not a list of ISO 3166 alpha-2 codes") }
    /// A hub is not a three-letter IATA airport code.
    static func invalidHub(line: Int, _ value: String) -> Self { .init(.invalidHub, "line \(line): hubs '\(value)' is not a list of IATA airport codes") }
    /// A network or regional carrier lists no hub.
    static func missingHub(line: Int, _ code: String) -> Self { .init(.missingHub, "line \(line): hubs is empty for \(code), which is not low-cost") }
    /// The kind is not `network`, `regional` or `low-cost`.
    static func unknownKind(line: Int, _ value: String) -> Self { .init(.unknownKind, "line \(line): kind '\(value)' is not network, regional or low-cost") }
    /// A cabin letter is not Y, W, C or F.
    static func unknownCabin(line: Int, _ value: String) -> Self { .init(.unknownCabin, "line \(line): cabins '\(value)' is not a list of Y, W, C, F") }
    /// The carrier sells no economy.
    static func noEconomy(line: Int, _ code: String) -> Self { .init(.noEconomy, "line \(line): cabins of \(code) lack Y (economy)") }
    /// A low-cost carrier is said to sell premium economy, business or first.
    static func lowCostPremiumCabin(line: Int, _ code: String) -> Self { .init(.lowCostPremiumCabin, "line \(line): \(code) is low-cost but cabins list more than Y") }
}
