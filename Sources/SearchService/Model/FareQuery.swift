public import FareLensMessages

/// One validated search as providers see it: codes are known to the
/// directory, dates are real, counts are in range (see ``SearchValidator``).
/// Flexible searches are expanded into one query per date pair first.
public struct FareQuery: Sendable, Hashable, CustomStringConvertible {
    /// IATA airport or metro code, upper case.
    public var origin: String
    /// IATA airport or metro code, upper case.
    public var destination: String
    public var departureDate: CalendarDate
    /// Nil for a one-way trip.
    public var returnDate: CalendarDate?
    public var adults: Int
    public var children: Int
    public var infants: Int
    public var cabin: Cabin
    public var nonstopOnly: Bool
    /// Currency the caller wants prices in (ISO 4217).
    public var currency: String

    /// The currency live providers are asked in when a search names none.
    public static let defaultCurrency = "EUR"

    /// Creates a query.
    public init(
        origin: String, destination: String, departureDate: CalendarDate, returnDate: CalendarDate? = nil,
        adults: Int = 1, children: Int = 0, infants: Int = 0, cabin: Cabin = .economy,
        nonstopOnly: Bool = false, currency: String = FareQuery.defaultCurrency
    ) {
        self.origin = origin
        self.destination = destination
        self.departureDate = departureDate
        self.returnDate = returnDate
        self.adults = adults
        self.children = children
        self.infants = infants
        self.cabin = cabin
        self.nonstopOnly = nonstopOnly
        self.currency = currency
    }

    /// Adults + children + infants.
    public var travellers: Int { adults + children + infants }

    /// A stable text form, used as the cache and coalescing key.
    public var description: String {
        "\(origin)-\(destination) \(departureDate)\(returnDate.map { "/\($0)" } ?? "") a\(adults)c\(children)i\(infants) \(cabin) \(nonstopOnly ? "nonstop" : "any") \(currency)"
    }
}
