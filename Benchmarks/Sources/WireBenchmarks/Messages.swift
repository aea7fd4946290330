import BenchmarkHarness
import FareLensBus
import FareLensMessages

/// The wire benchmarks' request and answer (BenchmarkHarness).
typealias EchoRequest = BytesEchoRequest
typealias EchoResponse = BytesEchoResponse

/// A deterministic generator, so every run compresses the same bytes.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func hex(_ digits: Int) -> String {
        var text = ""
        while text.count < digits { text += String(next(), radix: 16) }
        return String(text.prefix(digits))
    }
}

/// A New York–London round-trip search result as the search service would
/// return it: `count` offers from several carriers and providers, nonstop
/// and one-stop, sorted by price.
func makeSearchResponse(offers count: Int) -> SearchFlightsResponse {
    let carriers: [(code: String, site: String)] = [
        ("BA", "https://www.britishairways.com/travel/book/public/en_us"),
        ("AA", "https://www.aa.com/booking/choose-flights"),
        ("VS", "https://www.virginatlantic.com/flight-search/book-a-flight"),
        ("DL", "https://www.delta.com/flight-search/book-a-flight"),
        ("UA", "https://www.united.com/en/us/fsr/choose-flights"),
        ("B6", "https://www.jetblue.com/booking/flights"),
        ("EI", "https://www.aerlingus.com/booking/select-flights"),
        ("FI", "https://www.icelandair.com/flights/select"),
    ]
    let hubs = ["DUB", "KEF", "BOS", "ORD", "PHL"]
    let providers = ["amadeus", "travelpayouts", "simulated"]
    var random = SplitMix64(state: 0xFA4E_1E25)
    var response = SearchFlightsResponse()
    response.observedAtUnixMs = 1_796_000_000_000
    response.providers = providers

    func segment(_ from: String, _ to: String, carrier: String, day: Int, hour: Int, minutes: Int, fromZone: String, toZone: String) -> FlightSegment {
        var segment = FlightSegment()
        segment.fromAirport = from
        segment.toAirport = to
        segment.carrier = carrier
        segment.flightNumber = "\(carrier)\(100 + random.below(1900))"
        let departureMinute = [0, 5, 15, 20, 30, 35, 45, 55][random.below(8)]
        segment.departureLocal = "2026-12-\(two(day))T\(two(hour)):\(two(departureMinute))"
        let arrivalTotal = hour * 60 + departureMinute + minutes + (fromZone == toZone ? 0 : (fromZone.hasPrefix("America") ? 300 : -300))
        let arrivalDay = day + arrivalTotal / 1440
        let arrivalOfDay = ((arrivalTotal % 1440) + 1440) % 1440
        segment.arrivalLocal = "2026-12-\(two(arrivalDay))T\(two(arrivalOfDay / 60)):\(two(arrivalOfDay % 60))"
        segment.departureTimeZone = fromZone
        segment.arrivalTimeZone = toZone
        segment.durationMinutes = Int32(minutes)
        return segment
    }

    func journey(from: String, to: String, carrier: String, day: Int, stops: Int) -> FlightJourney {
        let fromZone = from == "JFK" ? "America/New_York" : "Europe/London"
        let toZone = to == "JFK" ? "America/New_York" : "Europe/London"
        var journey = FlightJourney()
        let hour = 6 + random.below(16)
        if stops == 0 {
            journey.segments = [segment(from, to, carrier: carrier, day: day, hour: hour, minutes: 400 + random.below(80), fromZone: fromZone, toZone: toZone)]
        } else {
            let via = hubs[random.below(hubs.count)]
            let viaZone = ["DUB", "KEF"].contains(via) ? "Europe/Dublin" : "America/New_York"
            let first = segment(from, via, carrier: carrier, day: day, hour: hour, minutes: 90 + random.below(300), fromZone: fromZone, toZone: viaZone)
            let second = segment(via, to, carrier: carrier, day: day, hour: min(hour + 4, 23), minutes: 90 + random.below(300), fromZone: viaZone, toZone: toZone)
            journey.segments = [first, second]
        }
        journey.stops = Int32(stops)
        journey.durationMinutes = journey.segments.reduce(0) { $0 + $1.durationMinutes } + Int32(stops * (60 + random.below(120)))
        return journey
    }

    var price = 48_900 as Int64
    for _ in 0..<count {
        let (carrier, site) = carriers[random.below(carriers.count)]
        var offer = FlightOffer()
        offer.carrier = carrier
        offer.outbound = journey(from: "JFK", to: "LHR", carrier: carrier, day: 14, stops: random.below(3) == 0 ? 1 : 0)
        offer.inbound = journey(from: "LHR", to: "JFK", carrier: carrier, day: 21, stops: random.below(3) == 0 ? 1 : 0)
        offer.flightNumbers = (offer.outbound.segments + offer.inbound.segments).map(\.flightNumber)
        offer.cabin = .economy
        price += Int64(500 + random.below(4000))
        var money = Money()
        money.currency = "USD"
        money.minorUnits = price
        offer.price = money
        offer.provider = providers[random.below(providers.count)]
        offer.simulated = offer.provider == "simulated"
        offer.offerID = "\(offer.provider)-\(random.hex(24))"
        offer.bookingLink = "\(site)?offer=\(offer.offerID)&from=JFK&to=LHR&depart=2026-12-14&return=2026-12-21&adults=1&cabin=economy"
        response.offers.append(offer)
    }
    return response
}

/// Two digits, zero-padded (ISO local times).
func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
