public import FareLensServiceKit
public import FareLensMessages
import Foundation

/// Every airport with an IATA code and the metro codes (real data,
/// `Resources/airports.csv` and `metros.csv`; see Resources/ATTRIBUTION.md).
/// Immutable after loading; look-ups are dictionary reads.
public final class AirportDirectory: Sendable {
    public let airports: [String: AirportRecord]
    public let metros: [String: MetroRecord]
    /// Airports in code order, for scans.
    let ordered: [AirportRecord]
    let foldedCity: [String: String]
    let foldedName: [String: String]

    /// Builds a directory from records (tests use small ones).
    public init(airports: [AirportRecord], metros: [MetroRecord]) {
        self.airports = Dictionary(airports.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        self.metros = Dictionary(metros.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
        ordered = airports.sorted { $0.code < $1.code }
        foldedCity = Dictionary(airports.map { ($0.code, folded($0.city)) }, uniquingKeysWith: { first, _ in first })
        foldedName = Dictionary(airports.map { ($0.code, folded($0.name)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The bundled directory, loaded once.
    ///
    /// - Throws: ``BundledDataError`` when the resource files are missing or
    ///   lack a column (a packaging fault: the node refuses to start).
    public static func bundled() throws(BundledDataError) -> AirportDirectory { try loaded.get() }

    private static let loaded = Result { () throws(BundledDataError) -> AirportDirectory in
        let airports = try CSVTable(text: BundledData.text("airports"), name: "airports")
        let (code, name, city, country, lat, lon, tz, metro, popular) = try (
            airports.column("iata"), airports.column("name"), airports.column("city"), airports.column("country"),
            airports.column("lat"), airports.column("lon"), airports.column("tz"), airports.column("metro"), airports.column("popular")
        )
        let records = airports.rows.map { row in
            AirportRecord(
                code: row[code], name: row[name], city: row[city], country: row[country],
                latitude: Double(row[lat]) ?? 0, longitude: Double(row[lon]) ?? 0, timeZone: row[tz],
                metro: row[metro], popular: row[popular] == "1"
            )
        }
        let metros = try CSVTable(text: BundledData.text("metros"), name: "metros")
        let (metroCode, metroCity, metroCountry, members, metroPopular) = try (
            metros.column("code"), metros.column("city"), metros.column("country"), metros.column("airports"), metros.column("popular")
        )
        let metroRecords = metros.rows.map { row in
            MetroRecord(
                code: row[metroCode], city: row[metroCity], country: row[metroCountry],
                airports: row[members].split(separator: ";").map(String.init), popular: row[metroPopular] == "1"
            )
        }
        return AirportDirectory(airports: records, metros: metroRecords)
    }

    /// The airport with IATA code `code` (upper case).
    public func airport(_ code: String) -> AirportRecord? { airports[code] }

    /// The airports a code stands for: the airport itself, or a metro's members.
    public func memberAirports(of code: String) -> [AirportRecord] {
        if let airport = airports[code] { return [airport] }
        return metros[code]?.airports.compactMap { airports[$0] } ?? []
    }

    /// A representative airport for distances and time zones: the airport, or the metro's first member.
    public func representative(of code: String) -> AirportRecord? { memberAirports(of: code).first }

    /// Whether `code` is a known airport or metro code.
    public func knows(_ code: String) -> Bool { airports[code] != nil || metros[code] != nil }

    /// What the directory knows of `code` for a route check, nil when it
    /// knows nothing: the same answer other services read from an
    /// `AirportLookupResponse` (a code that is both a metro and an airport is the metro).
    public func place(_ code: String) -> KnownPlace? {
        if let metro = metros[code] { return KnownPlace(code: code, metroCode: code, city: metro.city) }
        guard let airport = airports[code] else { return nil }
        return KnownPlace(code: code, metroCode: airport.metro, city: airport.city)
    }

    /// The IANA time zone of an airport (or a metro's first airport).
    public func timeZone(of code: String) -> String? { representative(of: code)?.timeZone }

    /// The message form of a metro area, members most popular first.
    public func metroMessage(_ metro: MetroRecord) -> MetroArea {
        var area = MetroArea()
        area.code = metro.code
        area.city = metro.city
        area.country = metro.country
        area.airports = metro.airports.compactMap { airports[$0] }.sorted { $0.popular && !$1.popular }.map(\.message)
        return area
    }
}

/// The data files bundled with the service.
enum BundledData {
    static func text(_ name: String) throws(BundledDataError) -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "csv", subdirectory: "Resources"),
              let text = try? String(contentsOf: url, encoding: .utf8)
        else { throw BundledDataError(file: name + ".csv", reason: "missing from the SearchService resource bundle (ship the FareLens_SearchService.resources folder next to the binary)") }
        return text
    }
}
