import FareLensMessages

/// Who plausibly flies a route in the simulated market, and how (see
/// docs/search.md § How the simulated market chooses carriers and prices cabins):
///
/// - Nonstop: only a carrier based in the origin's or the destination's
///   country. Low-cost and regional carriers only below
///   ``CabinPricing/longHaulKilometres``; a long-haul nonstop (up to
///   ``maximumNonstopKilometres``) also needs one end at a hub of the carrier
///   and the other at a hub of any carrier or a popular airport.
/// - One stop: a network or regional carrier connecting at one of its own
///   hubs, which is neither end (nor in the same metro) and at least 150 km
///   from both; the two flights together at most ``maximumDetour`` × the
///   great-circle distance; a regional carrier's flights are both short or
///   medium haul. Carriers of either end's country come first, then hubs of
///   third countries (Gulf, European, Asian …).
/// - Domestic routes: only carriers of that country (no cabotage), nonstop or one stop.
/// - A cabin is offered only by carriers that sell it there (``CabinPricing``).
///
/// Lookups are built once: carriers by country, and every hub as an airport record.
struct CarrierNetwork: Sendable {
    /// One way to fly a route.
    struct Option: Sendable, Hashable {
        let airline: AirlineRecord
        /// The connection, or nil for a nonstop.
        let via: AirportRecord?
        /// Flown distance (both flights for a one-stop).
        let kilometres: Double
        /// The longest flight's distance.
        let longestLeg: Double
        /// Whether the carrier is based in either end's country.
        let home: Bool
    }

    static let maximumDetour = 1.4
    static let maximumNonstopKilometres = 15_500.0
    static let minimumLegKilometres = 150.0

    let table: AirlineTable
    let byCountry: [String: [AirlineRecord]]
    /// (carrier, hub airport) for every carrier that sells connections.
    let connections: [(airline: AirlineRecord, hub: AirportRecord)]
    /// Every hub code of every carrier.
    let hubCodes: Set<String>
    /// Per metro code: the member airport a search of the metro flies from
    /// (the member that is a hub of most carriers, else the first member).
    let metroAirports: [String: AirportRecord]
    /// Per carrier code: the metro codes of its hubs (a hub at LHR makes the carrier at home in LON).
    let hubMetros: [String: Set<String>]

    init(table: AirlineTable, directory: AirportDirectory) {
        self.table = table
        var byCountry: [String: [AirlineRecord]] = [:]
        for airline in table.airlines {
            for country in airline.countries { byCountry[country, default: []].append(airline) }
        }
        self.byCountry = byCountry
        connections = table.airlines.filter { $0.kind != .lowCost }.flatMap { airline in
            airline.hubs.compactMap { directory.airport($0) }.map { (airline: airline, hub: $0) }
        }
        hubCodes = Set(table.airlines.flatMap(\.hubs))
        var hubCount: [String: Int] = [:]
        for airline in table.airlines where airline.kind != .lowCost {
            for hub in airline.hubs { hubCount[hub, default: 0] += 1 }
        }
        var metroAirports: [String: AirportRecord] = [:]
        for (code, metro) in directory.metros {
            let members = metro.airports.compactMap { directory.airport($0) }
            // max(by:) keeps the first of equals: the first member wins ties.
            if let best = members.max(by: { hubCount[$0.code, default: 0] < hubCount[$1.code, default: 0] }) {
                metroAirports[code] = best
            }
        }
        self.metroAirports = metroAirports
        hubMetros = Dictionary(table.airlines.map { airline in
            (airline.code, Set(airline.hubs.compactMap { directory.airport($0)?.metro }.filter { !$0.isEmpty }))
        }, uniquingKeysWith: { first, _ in first })
    }

    /// Every plausible way to fly `origin`–`destination` in `cabin`: nonstops
    /// first (in table order), then one-stops, home carriers first, shortest first.
    func options(from origin: AirportRecord, to destination: AirportRecord, cabin: Cabin) -> [Option] {
        let direct = origin.kilometers(to: destination)
        let longHaul = direct >= CabinPricing.longHaulKilometres
        let countries = origin.country == destination.country ? [origin.country] : [origin.country, destination.country]
        var nonstops: [Option] = []
        if direct <= Self.maximumNonstopKilometres {
            var seen: Set<String> = []
            for country in countries {
                for airline in byCountry[country] ?? [] where seen.insert(airline.code).inserted {
                    guard CabinPricing.sells(airline, cabin, routeKilometres: direct) else { continue }
                    if longHaul {
                        guard airline.kind == .network else { continue }
                        let fromHub = isHub(origin, of: airline), toHub = isHub(destination, of: airline)
                        guard (fromHub && isGateway(destination)) || (toHub && isGateway(origin)) else { continue }
                    }
                    nonstops.append(Option(airline: airline, via: nil, kilometres: direct, longestLeg: direct, home: true))
                }
            }
        }
        var oneStops: [Option] = []
        for (airline, hub) in connections {
            guard hub.code != origin.code, hub.code != destination.code,
                  hub.metro.isEmpty || (hub.metro != origin.metro && hub.metro != destination.metro)
            else { continue }
            let home = airline.countries.contains(origin.country) || airline.countries.contains(destination.country)
            if countries.count == 1 && !home { continue }  // domestic: no cabotage
            let (first, second) = (origin.kilometers(to: hub), hub.kilometers(to: destination))
            guard first >= Self.minimumLegKilometres, second >= Self.minimumLegKilometres,
                  first + second <= direct * Self.maximumDetour,
                  max(first, second) <= Self.maximumNonstopKilometres
            else { continue }
            let longest = max(first, second)
            if airline.kind == .regional && longest >= CabinPricing.longHaulKilometres { continue }
            guard CabinPricing.sells(airline, cabin, routeKilometres: direct) else { continue }
            oneStops.append(Option(airline: airline, via: hub, kilometres: first + second, longestLeg: longest, home: home))
        }
        oneStops.sort { ($0.home ? 0 : 1, $0.kilometres, $0.airline.code) < ($1.home ? 0 : 1, $1.kilometres, $1.airline.code) }
        return nonstops + oneStops
    }

    /// The airport a search of `code` flies from: the airport itself, or the
    /// metro's busiest hub (LON → LHR, TYO → HND), else its first member.
    func airport(_ code: String, in directory: AirportDirectory) -> AirportRecord? {
        directory.airport(code) ?? metroAirports[code]
    }

    /// Whether `airport` (or its metro) is one of `airline`'s hubs.
    func isHub(_ airport: AirportRecord, of airline: AirlineRecord) -> Bool {
        airline.hubs.contains(airport.code) || (!airport.metro.isEmpty && hubMetros[airline.code]?.contains(airport.metro) == true)
    }

    /// A long-haul nonstop's far end: some carrier's hub or a popular airport.
    func isGateway(_ airport: AirportRecord) -> Bool { airport.popular || hubCodes.contains(airport.code) }
}
