public import FareLensMessages
import Foundation

/// One airport of the directory.
public struct AirportRecord: Sendable, Hashable {
    public let code: String
    public let name: String
    /// May be empty in the source data (small airfields).
    public let city: String
    public let country: String
    public let latitude: Double
    public let longitude: Double
    /// IANA time zone, e.g. "Europe/London".
    public let timeZone: String
    /// Its metro code, e.g. "LON", or "".
    public let metro: String
    public let popular: Bool

    /// The message form.
    public var message: Airport {
        var airport = Airport()
        airport.iataCode = code
        airport.name = name
        airport.city = city
        airport.country = country
        airport.latitude = latitude
        airport.longitude = longitude
        airport.timeZone = timeZone
        airport.metroCode = metro
        airport.popular = popular
        return airport
    }

    /// Great-circle distance in statute miles (haversine, mean Earth radius).
    public func miles(to other: AirportRecord) -> Double { kilometers(to: other) / 1.609_344 }

    /// Great-circle distance in kilometres.
    public func kilometers(to other: AirportRecord) -> Double {
        let radians = Double.pi / 180
        let dLat = (other.latitude - latitude) * radians, dLon = (other.longitude - longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(latitude * radians) * cos(other.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6371.0088 * asin(min(1, h.squareRoot()))
    }
}

/// A metropolitan code standing for several airports (LON, NYC, PAR, TYO …).
public struct MetroRecord: Sendable, Hashable {
    public let code: String
    public let city: String
    public let country: String
    /// Member airport codes, in directory order.
    public let airports: [String]
    public let popular: Bool
}

/// Text folded for matching: lower case, no accents, single spaces.
func folded(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        .split(whereSeparator: { $0 == " " || $0 == "-" }).joined(separator: " ")
}
