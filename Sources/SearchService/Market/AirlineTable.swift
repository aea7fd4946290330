public import FareLensMessages
import FareLensServiceKit

/// One airline of the simulated market's table.
public struct AirlineRecord: Sendable, Hashable {
    /// How the carrier flies.
    public enum Kind: String, Sendable, Hashable {
        /// Full service, long-haul network from its hubs; sells connections.
        case network
        /// Full service, short and medium haul only (under the long-haul threshold); sells connections.
        case regional
        /// Low-cost: nonstop only, short and medium haul only, economy only.
        case lowCost = "low-cost"
    }

    /// Two-character IATA airline code, e.g. "TP".
    public let code: String
    /// Its common name, e.g. "TAP Air Portugal".
    public let name: String
    /// Home countries (ISO 3166 alpha-2); several for a multinational carrier (SAS: DK, NO, SE).
    public let countries: [String]
    /// Hub airports (IATA); for a low-cost carrier, its main bases.
    public let hubs: [String]
    /// How it flies: network, regional or low-cost.
    public let kind: Kind
    /// The cabins it sells somewhere in its network.
    public let cabins: Set<Cabin>
}

/// The hand-written airline table (`Resources/airlines.csv`; see
/// Resources/ATTRIBUTION.md): columns `iata,name,countries,hubs,kind,cabins`,
/// lists separated by `;`, cabins as Y (economy), W (premium economy),
/// C (business), F (first).
public struct AirlineTable: Sendable {
    /// The airlines in file order.
    public let airlines: [AirlineRecord]
    let byCode: [String: AirlineRecord]

    /// Parses the table's text.
    ///
    /// - Throws: ``AirlineTableError`` naming the first malformed line.
    public init(text: String) throws(AirlineTableError) {
        let table: CSVTable
        do { table = try CSVTable(text: text, name: "airlines") } catch { throw .fieldCount(error.reason) }
        func column(_ name: String) throws(AirlineTableError) -> Int {
            guard let index = table.header.firstIndex(of: name) else { throw .missingColumn(name) }
            return index
        }
        let (iata, name, countries, hubs, kind, cabins) = try (
            column("iata"), column("name"), column("countries"), column("hubs"), column("kind"), column("cabins")
        )
        var airlines: [AirlineRecord] = []
        var seen: Set<String> = []
        for (index, row) in table.rows.enumerated() {
            let line = index + 2
            let code = row[iata]
            guard code.count == 2, code.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { throw .invalidCode(line: line, code) }
            guard seen.insert(code).inserted else { throw .duplicateCode(line: line, code) }
            let countryList = Self.list(row[countries])
            guard !countryList.isEmpty, countryList.allSatisfy({ Self.isCode($0, length: 2) }) else { throw .invalidCountry(line: line, row[countries]) }
            let hubList = Self.list(row[hubs])
            guard hubList.allSatisfy({ Self.isCode($0, length: 3) }) else { throw .invalidHub(line: line, row[hubs]) }
            guard let airlineKind = AirlineRecord.Kind(rawValue: row[kind]) else { throw .unknownKind(line: line, row[kind]) }
            if airlineKind != .lowCost && hubList.isEmpty { throw .missingHub(line: line, code) }
            var sold: Set<Cabin> = []
            for letter in Self.list(row[cabins]) {
                guard let cabin = Self.cabin(letter) else { throw .unknownCabin(line: line, row[cabins]) }
                sold.insert(cabin)
            }
            guard sold.contains(.economy) else { throw .noEconomy(line: line, code) }
            if airlineKind == .lowCost && sold != [.economy] { throw .lowCostPremiumCabin(line: line, code) }
            airlines.append(AirlineRecord(code: code, name: row[name], countries: countryList, hubs: hubList, kind: airlineKind, cabins: sold))
        }
        self.airlines = airlines
        byCode = Dictionary(airlines.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The bundled table.
    /// The bundled airline table, loaded once per process (it never changes while the process runs).
    static func bundled() throws(BundledDataError) -> AirlineTable { try loaded.get() }

    private static let loaded = Result { () throws(BundledDataError) -> AirlineTable in
        let text = try BundledData.text("airlines")
        do throws(AirlineTableError) { return try AirlineTable(text: text) } catch { throw BundledDataError(file: "airlines.csv", reason: error.description) }
    }

    /// The airline with IATA code `code`.
    public func airline(_ code: String) -> AirlineRecord? { byCode[code] }

    static func list(_ field: String) -> [String] {
        field.split(separator: ";").map { String($0.filter { !$0.isWhitespace }) }.filter { !$0.isEmpty }
    }

    static func isCode(_ text: String, length: Int) -> Bool {
        text.count == length && text.allSatisfy { $0.isASCII && $0.isUppercase }
    }

    static func cabin(_ letter: String) -> Cabin? {
        switch letter {
        case "Y": .economy
        case "W": .premiumEconomy
        case "C": .business
        case "F": .first
        default: nil
        }
    }
}
