import FareLensMessages
import Foundation

/// Builds the simulated market's itineraries: nonstop by a carrier of
/// either country, or one stop at a hub of the selling carrier
/// (``CarrierNetwork``), with local times in each airport's zone and
/// durations from great-circle distance.
struct SimulatedItineraries: Sendable {
    /// One itinerary before pricing.
    struct Plan: Sendable {
        var offer: FlightOffer
        /// Multiplies the day's cheapest fare (1 for the cheapest plan).
        var priceFactor: Double
        /// Stable text identifying the itinerary.
        var key: String
    }

    let directory: AirportDirectory
    let random: StableRandom
    let carriers: CarrierNetwork
    /// How many one-stop options (best first) a search draws from.
    static let oneStopPool = 5

    init(directory: AirportDirectory, random: StableRandom, carriers: CarrierNetwork) {
        self.directory = directory
        self.random = random
        self.carriers = carriers
    }

    /// 3–7 itineraries drawn from the route's plausible options
    /// (``CarrierNetwork``): the first, and cheapest, nonstop when there is
    /// one; none when no carrier plausibly flies the route in the cabin.
    func plans(from origin: AirportRecord, to destination: AirportRecord, query: FareQuery) -> [Plan] {
        let options = carriers.options(from: origin, to: destination, cabin: query.cabin)
        let nonstops = Array(options.prefix { $0.via == nil })
        let oneStops = query.nonstopOnly ? [] : Array(options.dropFirst(nonstops.count).prefix(Self.oneStopPool))
        guard !nonstops.isEmpty || !oneStops.isEmpty else { return [] }
        let route = "\(origin.code)-\(destination.code)|\(query.departureDate)|\(query.returnDate.map(String.init(describing:)) ?? "oneway")"
        let count = 3 + random.int(route + "|count", in: 0 ... 4)
        return (0..<count).map { index in
            let key = "\(route)|\(index)"
            let oneStop = nonstops.isEmpty || (index > 0 && !oneStops.isEmpty && random.uniform(key + "|stops") < 0.5)
            let pool = oneStop ? oneStops : nonstops
            let option = pool[random.int(key + "|carrier", in: 0 ... pool.count - 1)]
            let carrier = option.airline.code
            var offer = FlightOffer()
            offer.carrier = carrier
            offer.cabin = query.cabin
            offer.outbound = journey(origin, destination, via: option.via, on: query.departureDate, carrier: carrier, key: key + "|out")
            if let back = query.returnDate {
                offer.inbound = journey(destination, origin, via: option.via, on: back, carrier: carrier, key: key + "|in")
            }
            offer.flightNumbers = (offer.outbound.segments + offer.inbound.segments).map(\.flightNumber)
            let factor = index == 0 ? 1.0 : (oneStop ? 1.0 : 1.06) + 0.04 * Double(index) + 0.05 * random.uniform(key + "|price")
            return Plan(offer: offer, priceFactor: factor, key: key)
        }
    }

    func journey(_ from: AirportRecord, _ to: AirportRecord, via hub: AirportRecord?, on date: CalendarDate, carrier: String, key: String) -> FlightJourney {
        let start = LocalClock.instant(date, minutes: 6 * 60 + 5 * random.int(key + "|time", in: 0 ... 191), zone: from.timeZone)
        var legs: [(AirportRecord, AirportRecord)] = [(from, to)]
        if let hub { legs = [(from, hub), (hub, to)] }
        var segments: [FlightSegment] = []
        var departure = start
        for (index, (a, b)) in legs.enumerated() {
            let minutes = Self.flightMinutes(a.kilometers(to: b))
            var segment = FlightSegment()
            segment.fromAirport = a.code
            segment.toAirport = b.code
            segment.departureLocal = LocalClock.local(departure, zone: a.timeZone)
            segment.departureTimeZone = a.timeZone
            let arrival = departure + Double(minutes * 60)
            segment.arrivalLocal = LocalClock.local(arrival, zone: b.timeZone)
            segment.arrivalTimeZone = b.timeZone
            segment.carrier = carrier
            segment.flightNumber = carrier + String(random.int("\(key)|\(index)|number", in: 100 ... 9899))
            segment.durationMinutes = Int32(minutes)
            segments.append(segment)
            departure = arrival + Double(60 * (55 + 5 * random.int("\(key)|\(index)|layover", in: 0 ... 24)))
        }
        var journey = FlightJourney()
        journey.segments = segments
        let end = segments.last.flatMap { LocalClock.instant(local: $0.arrivalLocal, zone: $0.arrivalTimeZone) } ?? start
        journey.durationMinutes = Int32(((end - start) / 60).rounded())
        journey.stops = Int32(segments.count - 1)
        return journey
    }

    /// Block time: 35 minutes on the ground plus 800 km/h, in 5-minute steps.
    static func flightMinutes(_ kilometers: Double) -> Int {
        Int(((35 + kilometers / 800 * 60) / 5).rounded()) * 5
    }
}

/// Wall-clock conversions between an instant (seconds since 1970) and
/// `YYYY-MM-DDTHH:MM` in an IANA zone.
enum LocalClock {
    static func instant(_ date: CalendarDate, minutes: Int, zone: String) -> Double {
        let wall = Double(date.daysSinceEpoch * 86_400 + minutes * 60)
        let timeZone = TimeZones.zone(zone)
        // The offset at the wall time read as UTC is right except within a DST change.
        return wall - Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall)))
    }

    static func instant(local text: String, zone: String) -> Double? {
        let parts = text.split(separator: "T")
        guard parts.count == 2, let date = CalendarDate(iso: parts[0]) else { return nil }
        let time = parts[1].split(separator: ":").compactMap { Int($0) }
        guard time.count >= 2 else { return nil }
        return instant(date, minutes: time[0] * 60 + time[1], zone: zone)
    }

    static func local(_ instant: Double, zone: String) -> String {
        let timeZone = TimeZones.zone(zone)
        let wall = Int(instant) + timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant))
        let days = Int((Double(wall) / 86_400).rounded(.down))
        let minutes = (wall - days * 86_400) / 60
        return "\(CalendarDate(daysSinceEpoch: days))T" + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
