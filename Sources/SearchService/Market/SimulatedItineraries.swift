import FareLensMessages
import Foundation

/// Builds the simulated market's itineraries: nonstop or one stop through
/// a popular airport on the way, with local times in each airport's zone
/// and durations from great-circle distance.
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
    let hubs: [AirportRecord]
    static let carriers = ["LH", "AF", "BA", "KL", "IB", "AZ", "TK", "LX", "OS", "SK", "AY", "TP", "EI", "U2", "FR", "W6", "VY", "EK", "QR", "UA", "DL", "AA"]

    init(directory: AirportDirectory, random: StableRandom) {
        self.directory = directory
        self.random = random
        self.hubs = directory.airports.values.filter(\.popular).sorted { $0.code < $1.code }
    }

    func plans(from origin: AirportRecord, to destination: AirportRecord, query: FareQuery) -> [Plan] {
        let route = "\(origin.code)-\(destination.code)|\(query.departureDate)|\(query.returnDate.map(String.init(describing:)) ?? "oneway")"
        let hub = connection(from: origin, to: destination)
        let count = 3 + random.int(route + "|count", in: 0 ... 4)
        return (0..<count).compactMap { index in
            let key = "\(route)|\(index)"
            let oneStop = index > 0 && hub != nil && random.uniform(key + "|stops") < 0.5
            guard !(oneStop && query.nonstopOnly) else { return nil }
            let carrier = Self.carriers[random.int(key + "|carrier", in: 0 ... Self.carriers.count - 1)]
            var offer = FlightOffer()
            offer.carrier = carrier
            offer.cabin = query.cabin
            offer.outbound = journey(origin, destination, via: oneStop ? hub : nil, on: query.departureDate, carrier: carrier, key: key + "|out")
            if let back = query.returnDate {
                offer.inbound = journey(destination, origin, via: oneStop ? hub : nil, on: back, carrier: carrier, key: key + "|in")
            }
            offer.flightNumbers = (offer.outbound.segments + offer.inbound.segments).map(\.flightNumber)
            let factor = index == 0 ? 1.0 : (oneStop ? 1.0 : 1.06) + 0.04 * Double(index) + 0.05 * random.uniform(key + "|price")
            return Plan(offer: offer, priceFactor: factor, key: key)
        }
    }

    /// A popular airport on the way (detour at most 35%), if any.
    func connection(from origin: AirportRecord, to destination: AirportRecord) -> AirportRecord? {
        let direct = origin.kilometers(to: destination)
        let candidates = hubs.compactMap { hub -> (AirportRecord, Double)? in
            guard hub.code != origin.code, hub.code != destination.code, hub.metro.isEmpty || (hub.metro != origin.metro && hub.metro != destination.metro) else { return nil }
            let (first, second) = (origin.kilometers(to: hub), hub.kilometers(to: destination))
            guard first > 150, second > 150, first + second <= direct * 1.35 else { return nil }
            return (hub, first + second)
        }.sorted { $0.1 < $1.1 }.prefix(3)
        guard !candidates.isEmpty else { return nil }
        return candidates[candidates.startIndex + random.int("\(origin.code)-\(destination.code)|hub", in: 0 ... candidates.count - 1)].0
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
