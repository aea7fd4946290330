import FareLensMessages

/// A current deal with the fields the feed filters and ranks on, read out of
/// the `Deal` message once (when the deal is made or loaded), so a feed over
/// 10,000 deals compares plain values instead of protobuf getters and
/// copies only the deals it returns. A class, so the feed's arrays move one
/// reference per deal rather than a dozen strings.
final class FeedEntry: Sendable {
    let deal: Deal
    let id: String
    let origin: String
    let destination: String
    /// The airports' metro codes, "" when none.
    let originMetro: String
    let destinationMetro: String
    let cabin: Cabin
    /// Days since 1970-01-01.
    let departureDay: Int
    /// `yyyymm` of the departure.
    let departureMonth: Int
    let price: Int64
    let currency: String
    let score: Int32
    let stops: Int32
    let carrier: String
    let international: Bool
    let expiresAtUnixMs: Int64

    init?(_ deal: Deal, metroOf: [String: String]) {
        guard let departure = CalendarDate(deal.departureDate) else { return nil }
        self.deal = deal
        id = deal.dealID
        origin = deal.origin
        destination = deal.destination
        originMetro = metroOf[deal.origin] ?? ""
        destinationMetro = metroOf[deal.destination] ?? ""
        cabin = deal.cabin
        departureDay = departure.daysSinceEpoch
        departureMonth = departure.year * 100 + departure.month
        price = deal.price.minorUnits
        currency = deal.price.currency
        score = deal.score.score
        stops = deal.stops
        carrier = deal.carrier
        international = deal.originCountry != deal.destinationCountry
        expiresAtUnixMs = deal.expiresAtUnixMs
    }

    /// Whether `code` names the origin (the airport or its metro).
    func departs(from code: String) -> Bool { code == origin || (!originMetro.isEmpty && code == originMetro) }

    /// Whether `code` names the destination (the airport or its metro).
    func arrives(at code: String) -> Bool { code == destination || (!destinationMetro.isEmpty && code == destinationMetro) }
}
