public import FareLensMessages

/// The search that finds an offer's fare again, for the click-out's
/// re-check (docs/analytics.md, "Track record"): the route as it was asked
/// (a metro code stays a metro code, so the click counts on the route the
/// traveller searched), the offer's own dates (a flexible search's offer may
/// be on a shifted day), and the same travellers, cabin and stops, since the
/// price is the total for all travellers.
public enum RecheckSearch {
    /// Nil when the offer's first departure has no readable date.
    public static func request(for offer: FlightOffer, foundBy query: FareQuery) -> SearchFlightsRequest? {
        guard let departure = date(of: offer.outbound) else { return nil }
        var request = SearchFlightsRequest()
        request.origin = query.origin
        request.destination = query.destination
        request.departureDate = departure.message
        if offer.hasInbound, let back = date(of: offer.inbound) { request.returnDate = back.message }
        request.adults = Int32(query.adults)
        request.children = Int32(query.children)
        request.infants = Int32(query.infants)
        request.cabin = query.cabin
        request.nonstopOnly = query.nonstopOnly
        return request
    }

    /// The local date of a journey's first departure ("2027-01-15T08:05" → 2027-01-15).
    private static func date(of journey: FlightJourney) -> CalendarDate? {
        guard let first = journey.segments.first else { return nil }
        return CalendarDate(iso: first.departureLocal.prefix(10))
    }
}
