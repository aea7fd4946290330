import FareLensMessages
import FareLensTesting
import SearchService

/// A provider double: answers from a script, counts calls, can fail or
/// hold every call until a gate opens.
final class ScriptedProvider: FareProvider, Sendable {
    let name: String
    let isLive: Bool
    let failure: Locked<ProviderError?>
    let calls = Locked(0)
    let gate: Gate?
    let price: Int64

    init(_ name: String, live: Bool = true, price: Int64 = 10_000, failure: ProviderError? = nil, gate: Gate? = nil) {
        self.name = name
        self.isLive = live
        self.price = price
        self.failure = Locked(failure)
        self.gate = gate
    }

    /// Calls in progress now, and the most ever in progress at once.
    let concurrency = Locked((now: 0, max: 0))
    /// The queries asked, in the order the calls started.
    let queries = Locked<[FareQuery]>([])

    func offers(for query: FareQuery, deadline: ContinuousClock.Instant?) async throws(ProviderError) -> [FlightOffer] {
        calls.update { $0 += 1 }
        queries.update { $0.append(query) }
        concurrency.update { $0.now += 1; $0.max = max($0.max, $0.now) }
        defer { concurrency.update { $0.now -= 1 } }
        if let gate { await gate.wait() }
        if let failure = failure.get() { throw failure }
        return [Self.offer(query, flight: "TP201", price: price, provider: name), Self.offer(query, flight: "TP203", price: price + 5_000, provider: name)]
    }

    static func offer(_ query: FareQuery, flight: String, price: Int64, provider: String) -> FlightOffer {
        var segment = FlightSegment()
        segment.fromAirport = query.origin
        segment.toAirport = query.destination
        segment.departureLocal = "\(query.departureDate)T08:00"
        segment.arrivalLocal = "\(query.departureDate)T11:00"
        segment.flightNumber = flight
        segment.carrier = String(flight.prefix(2))
        var offer = FlightOffer()
        offer.carrier = segment.carrier
        offer.flightNumbers = [flight]
        offer.outbound.segments = [segment]
        offer.outbound.durationMinutes = 180
        offer.cabin = query.cabin
        offer.price = MoneyAmount.money(price, "EUR")
        offer.provider = provider
        offer.bookingLink = "https://\(provider).example/book/\(flight)"
        return offer
    }
}
