import FareLensMessages

// The parts of Amadeus's JSON the adapter reads. Everything else in the
// documented shape (meta, dictionaries, travelerPricings, pricingOptions …)
// is ignored by the decoder.

/// `POST /v1/security/oauth2/token` answer.
struct AmadeusTokenResponse: Decodable {
    let accessToken: String
    /// Seconds the token is valid.
    let expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
    }
}

/// `GET /v2/shopping/flight-offers` answer.
struct AmadeusSearchResponse: Decodable {
    let data: [AmadeusOffer]
}

struct AmadeusOffer: Decodable {
    struct Price: Decodable {
        let currency: String
        /// Price before any payment fees; used only when `grandTotal` is absent.
        let total: String
        /// What the traveller pays, all travellers, as a decimal string.
        let grandTotal: String?
    }

    struct Itinerary: Decodable {
        /// ISO 8601, first departure to last arrival, e.g. "PT12H".
        let duration: String
        let segments: [Segment]
    }

    struct Segment: Decodable {
        struct Point: Decodable {
            let iataCode: String
            /// Local time at the airport, no offset: "2026-12-01T08:05:00".
            let at: String
        }

        let departure: Point
        let arrival: Point
        /// Marketing carrier.
        let carrierCode: String
        let number: String
        /// ISO 8601, e.g. "PT7H35M".
        let duration: String
    }

    let itineraries: [Itinerary]
    let price: Price
    let validatingAirlineCodes: [String]?
}

/// Where a decoded offer does not hold the documented values (a path such
/// as "itineraries[0].segments[1].departure.at"; never the value itself).
struct AmadeusMappingError: Error {
    let path: String
}

extension AmadeusOffer {
    /// The offer as a message: no offer id (the engine assigns them), provider
    /// "amadeus", not simulated, no booking link.
    func flightOffer(cabin: Cabin, timeZone: (String) -> String?) throws(AmadeusMappingError) -> FlightOffer {
        guard let outbound = itineraries.first else { throw AmadeusMappingError(path: "itineraries") }
        let currency = price.currency.uppercased()
        let amountField = price.grandTotal == nil ? "total" : "grandTotal"
        guard let minorUnits = MoneyAmount.minorUnits(fromDecimal: price.grandTotal ?? price.total, currency: currency) else {
            throw AmadeusMappingError(path: "price.\(amountField)")
        }
        var offer = FlightOffer()
        offer.outbound = try outbound.journey(timeZone: timeZone, path: "itineraries[0]")
        if itineraries.count > 1 {
            offer.inbound = try itineraries[1].journey(timeZone: timeZone, path: "itineraries[1]")
        }
        offer.flightNumbers = (offer.outbound.segments + offer.inbound.segments).map(\.flightNumber)
        offer.carrier = validatingAirlineCodes?.first ?? offer.outbound.segments.first?.carrier ?? ""
        offer.cabin = cabin
        offer.price = MoneyAmount.money(minorUnits, currency)
        offer.provider = AmadeusProvider.providerName
        offer.simulated = false
        offer.bookingLink = ""
        return offer
    }
}

extension AmadeusOffer.Itinerary {
    func journey(timeZone: (String) -> String?, path: String) throws(AmadeusMappingError) -> FlightJourney {
        guard !segments.isEmpty else { throw AmadeusMappingError(path: "\(path).segments") }
        guard let minutes = ProviderTime.minutes(isoDuration: duration) else { throw AmadeusMappingError(path: "\(path).duration") }
        var journey = FlightJourney()
        for (index, segment) in segments.enumerated() {
            journey.segments.append(try segment.message(timeZone: timeZone, path: "\(path).segments[\(index)]"))
        }
        journey.durationMinutes = Int32(minutes)
        journey.stops = Int32(segments.count - 1)
        return journey
    }
}

extension AmadeusOffer.Segment {
    func message(timeZone: (String) -> String?, path: String) throws(AmadeusMappingError) -> FlightSegment {
        guard let departs = ProviderTime.local(departure.at) else { throw AmadeusMappingError(path: "\(path).departure.at") }
        guard let arrives = ProviderTime.local(arrival.at) else { throw AmadeusMappingError(path: "\(path).arrival.at") }
        guard let minutes = ProviderTime.minutes(isoDuration: duration) else { throw AmadeusMappingError(path: "\(path).duration") }
        var segment = FlightSegment()
        segment.fromAirport = departure.iataCode
        segment.toAirport = arrival.iataCode
        segment.departureLocal = departs.text
        segment.departureTimeZone = timeZone(departure.iataCode) ?? ""
        segment.arrivalLocal = arrives.text
        segment.arrivalTimeZone = timeZone(arrival.iataCode) ?? ""
        segment.carrier = carrierCode
        segment.flightNumber = carrierCode + number
        segment.durationMinutes = Int32(minutes)
        return segment
    }
}
