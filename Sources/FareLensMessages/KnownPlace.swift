/// What search's airport directory knows of a code: enough to tell whether
/// two codes can be a route's two ends. Search builds it from its directory;
/// other services from an `AirportLookupResponse` (``AirportLookupResponse/place``).
public struct KnownPlace: Sendable, Hashable {
    /// The code, upper case: an IATA airport code or a metro code.
    public var code: String
    /// The metro code of the city the place is in: the code itself for a
    /// metro code, the airport's metro (LHR → LON), or empty for an airport
    /// in no metro area.
    public var metroCode: String
    /// The city's name, e.g. "London"; empty when the directory has none.
    public var city: String
    /// The currency searches from the place are answered in
    /// (`AirportLookupResponse.pricing_currency`); empty when not known.
    public var pricingCurrency: String

    public init(code: String, metroCode: String, city: String, pricingCurrency: String = "") {
        self.code = code
        self.metroCode = metroCode
        self.city = city
        self.pricingCurrency = pricingCurrency
    }

    /// The code that stands for the place's city: its metro code, or the
    /// airport's own code when it is in no metro.
    public var cityCode: String { metroCode.isEmpty ? code : metroCode }

    /// Why `destination` cannot follow `origin` on a route although the codes
    /// differ, or nil when it can: both are in one metro area (LON and LHR,
    /// LGW and LHR, JFK and LGA), which no flight joins. Every metro in the
    /// bundled directory is under 80 miles across.
    public static func sameCityRefusal(origin: KnownPlace, destination: KnownPlace) -> String? {
        guard origin.code != destination.code, origin.cityCode == destination.cityCode else { return nil }
        let name = origin.city.isEmpty ? origin.cityCode : origin.city
        let city = origin.city.isEmpty || origin.code == origin.cityCode ? name : "\(name), \(origin.cityCode)"
        return "\(destination.code) is in the same city as the origin \(origin.code) (\(city)): no flight joins them"
    }
}

extension AirportLookupResponse {
    /// The place the looked-up code stands for. A code that is both a metro
    /// and an airport (DFW, JNB) is taken as the metro.
    public var place: KnownPlace {
        if hasMetro { return KnownPlace(code: metro.code, metroCode: metro.code, city: metro.city, pricingCurrency: pricingCurrency) }
        return KnownPlace(code: airport.iataCode, metroCode: airport.metroCode, city: airport.city, pricingCurrency: pricingCurrency)
    }
}
