import FareLensServiceKit
/// Observed one-way EUR fares per route (real data: Piratefly flight fare
/// history, CC BY 4.0, `Resources/route-fares.csv`), looked up by airport
/// or metro code, either direction.
public struct RouteFareTable: Sendable {
    /// A route's observed fares, in euro cents.
    public struct Fare: Sendable, Hashable {
        public let medianCents: Int64
        public let minimumCents: Int64
        public let observations: Int
    }

    let fares: [String: Fare]
    /// Whether this is the bundled table (``bundled()``), whose price model is fitted once per process.
    let isBundled: Bool

    /// Builds a table from `"ORIGIN-DESTINATION"` keys.
    public init(fares: [String: Fare]) { self.init(fares: fares, isBundled: false) }

    private init(fares: [String: Fare], isBundled: Bool) {
        self.fares = fares
        self.isBundled = isBundled
    }

    /// The bundled table, loaded once per process (it never changes while the process runs).
    static func bundled() throws(BundledDataError) -> RouteFareTable { try loaded.get() }

    private static let loaded = Result { () throws(BundledDataError) -> RouteFareTable in
        let table = try CSVTable(text: BundledData.text("route-fares"), name: "route-fares")
        let (origin, destination, observations, median, minimum) = try (
            table.column("origin"), table.column("destination"), table.column("observations"),
            table.column("median_eur_cents"), table.column("min_eur_cents")
        )
        var fares: [String: Fare] = [:]
        for row in table.rows {
            guard let median = Int64(row[median]), let minimum = Int64(row[minimum]), let count = Int(row[observations]) else {
                throw BundledDataError(file: "route-fares.csv", reason: "non-numeric fare in row \(row)")
            }
            fares[row[origin] + "-" + row[destination]] = Fare(medianCents: median, minimumCents: minimum, observations: count)
        }
        return RouteFareTable(fares: fares, isBundled: true)
    }

    /// The observed fare between two codes: tried as given, then via each
    /// side's metro code, then the reverse direction (fares are roughly symmetric).
    public func fare(from origin: AirportRecord, to destination: AirportRecord) -> Fare? {
        let origins = [origin.code, origin.metro].filter { !$0.isEmpty }
        let destinations = [destination.code, destination.metro].filter { !$0.isEmpty }
        for (from, to) in [(origins, destinations), (destinations, origins)] {
            for a in from {
                for b in to { if let fare = fares[a + "-" + b] { return fare } }
            }
        }
        return nil
    }

    /// Every route, for calibration and the sweep.
    public var all: [String: Fare] { fares }
}
