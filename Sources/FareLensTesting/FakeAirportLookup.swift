public import FareLensMessages

/// Search's answer to an `AirportLookupRequest` as a fixture gives it: a
/// metro code as a metro area, any other code as an airport in `metros[code]`
/// (none when absent). Fixtures decide which codes are known.
public enum FakeAirportLookup {
    /// The metro codes of a few real airports, and the metros themselves.
    public static let metros = ["JFK": "NYC", "LGA": "NYC", "LHR": "LON", "LGW": "LON", "LCY": "LON", "CDG": "PAR", "ORY": "PAR"]
    static let metroCities = ["NYC": "New York", "LON": "London", "PAR": "Paris"]

    /// The response for `code` (upper-cased).
    public static func response(_ code: String) -> AirportLookupResponse {
        let code = code.uppercased()
        var response = AirportLookupResponse()
        if let city = metroCities[code] {
            response.metro.code = code
            response.metro.city = city
        } else {
            response.airport.iataCode = code
            response.airport.metroCode = metros[code] ?? ""
            response.airport.city = metros[code].flatMap { metroCities[$0] } ?? ""
        }
        return response
    }
}
