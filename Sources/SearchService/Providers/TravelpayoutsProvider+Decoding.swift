import FareLensMessages
import Foundation

/// `GET /aviasales/v3/prices_for_dates` answer:
/// `{"success": true, "data": [...], "currency": "eur"}`.
struct TravelpayoutsResponse: Decodable {
    let success: Bool
    let data: [TravelpayoutsTicket]?
    /// Lower case, e.g. "eur".
    let currency: String?
}

/// One cached price. Times carry their UTC offset; durations are minutes.
struct TravelpayoutsTicket: Decodable {
    /// City or airport codes as asked; `originAirport`/`destinationAirport` are the airports.
    let origin: String
    let destination: String
    let originAirport: String?
    let destinationAirport: String?
    /// Per person, whole or decimal currency units (a JSON number).
    let price: Decimal
    let airline: String
    /// The first flight's number, without the airline code; a string or a number.
    let flightNumber: FlexibleText?
    /// "2026-12-01T06:40:00+00:00".
    let departureAt: String
    let returnAt: String?
    let transfers: Int
    let returnTransfers: Int?
    /// Both directions together.
    let duration: Int?
    let durationTo: Int?
    let durationBack: Int?
    /// Relative to aviasales.com, query included.
    let link: String?

    enum CodingKeys: String, CodingKey {
        case origin, destination, price, airline, transfers, duration, link
        case originAirport = "origin_airport", destinationAirport = "destination_airport"
        case flightNumber = "flight_number", departureAt = "departure_at", returnAt = "return_at"
        case returnTransfers = "return_transfers", durationTo = "duration_to", durationBack = "duration_back"
    }
}

/// A JSON value that may be a string or a number, kept as text.
struct FlexibleText: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else {
            self.text = String(try container.decode(Int64.self))
        }
    }
}

/// The field of a ticket that does not hold a documented value (never the value).
struct TravelpayoutsMappingError: Error {
    let field: String
}

extension TravelpayoutsTicket {
    /// The ticket as an offer for `query`, or nil when it does not answer it
    /// (other dates, or connections on a nonstop-only search).
    func flightOffer(for query: FareQuery, currency: String, marker: String?, timeZone: (String) -> String?) throws(TravelpayoutsMappingError) -> FlightOffer? {
        guard let perPerson = MoneyAmount.minorUnits(fromDecimal: price.description, currency: currency) else {
            throw TravelpayoutsMappingError(field: "price")
        }
        let from = originAirport ?? origin
        let to = destinationAirport ?? destination
        let number = flightNumber.map { airline + $0.text } ?? ""
        let outbound = try journey(from: from, to: to, at: departureAt, field: "departure_at", minutes: durationTo ?? duration,
                                   minutesField: "duration_to", stops: transfers, flightNumber: number, timeZone: timeZone)
        guard outbound.departure.day == query.departureDate.daysSinceEpoch else { return nil }
        var offer = FlightOffer()
        offer.outbound = outbound.journey
        if let returnDate = query.returnDate {
            guard let returnAt else { return nil }
            let inbound = try journey(from: to, to: from, at: returnAt, field: "return_at", minutes: durationBack,
                                      minutesField: "duration_back", stops: returnTransfers ?? 0, flightNumber: "", timeZone: timeZone)
            guard inbound.departure.day == returnDate.daysSinceEpoch else { return nil }
            offer.inbound = inbound.journey
        }
        if query.nonstopOnly, offer.outbound.stops > 0 || offer.inbound.stops > 0 { return nil }
        offer.flightNumbers = (offer.outbound.segments + offer.inbound.segments).map(\.flightNumber).filter { !$0.isEmpty }
        offer.carrier = airline
        offer.cabin = .economy
        guard let total = Self.total(perPerson: perPerson, query) else { throw TravelpayoutsMappingError(field: "price") }
        offer.price = MoneyAmount.money(total, currency)
        offer.provider = TravelpayoutsProvider.providerName
        offer.simulated = false
        offer.bookingLink = (link ?? "").isEmpty ? "" : TravelpayoutsProvider.link(link ?? "", marker: marker, subID: nil)
        return offer
    }

    /// Price × (adults + children) + 10% of the price per infant, rounded
    /// half up; nil on overflow.
    static func total(perPerson: Int64, _ query: FareQuery) -> Int64? {
        let (seats, seatsOverflow) = perPerson.multipliedReportingOverflow(by: Int64(query.adults + query.children))
        let (laps, lapsOverflow) = perPerson.multipliedReportingOverflow(by: Int64(query.infants))
        guard !seatsOverflow, !lapsOverflow else { return nil }
        let (total, overflow) = seats.addingReportingOverflow((laps + 5) / 10)
        return overflow ? nil : total
    }

    /// One direction as one segment. With transfers the connecting airports
    /// are unknown: the segment spans origin to destination, `stops` says how
    /// many connections it hides, and its flight number is the first flight's.
    /// The arrival is the departure instant plus the duration, shown in the
    /// arrival airport's zone (empty when that zone is unknown).
    private func journey(
        from: String, to: String, at text: String, field: String, minutes: Int?, minutesField: String,
        stops: Int, flightNumber: String, timeZone: (String) -> String?
    ) throws(TravelpayoutsMappingError) -> (journey: FlightJourney, departure: ProviderTime.LocalMinute) {
        guard let departs = ProviderTime.withOffset(text) else { throw TravelpayoutsMappingError(field: field) }
        guard let minutes, (0 ... 10_000).contains(minutes) else { throw TravelpayoutsMappingError(field: minutesField) }
        guard (0 ... 10).contains(stops) else { throw TravelpayoutsMappingError(field: field == "return_at" ? "return_transfers" : "transfers") }
        let arrivalZone = timeZone(to) ?? ""
        var segment = FlightSegment()
        segment.fromAirport = from
        segment.toAirport = to
        segment.departureLocal = departs.local.text
        segment.departureTimeZone = timeZone(from) ?? ""
        segment.arrivalLocal = ProviderTime.local(atInstant: departs.instant + minutes * 60, inZone: arrivalZone)?.text ?? ""
        segment.arrivalTimeZone = arrivalZone
        segment.carrier = airline
        segment.flightNumber = flightNumber
        segment.durationMinutes = Int32(minutes)
        var journey = FlightJourney()
        journey.segments = [segment]
        journey.durationMinutes = Int32(minutes)
        journey.stops = Int32(stops)
        return (journey, departs.local)
    }
}
