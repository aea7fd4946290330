import FareLensMessages

/// A current deal as the feed keeps it: the `Deal` message, the numbers the
/// feed filters and ranks on (``FeedRow``, read out of the message once when
/// the deal is made or loaded) and the deal's feed item before any user's
/// boost, so a feed copies a ready item instead of building one per deal.
final class FeedEntry: Sendable {
    let deal: Deal
    let id: String
    let row: FeedRow
    /// The deal's ``FeedItem`` for a user who boosts nothing: queue score = deal score.
    let item: FeedItem

    init?(_ deal: Deal, metroOf: [String: String], codes: inout FeedCodes) {
        guard let departure = CalendarDate(deal.departureDate) else { return nil }
        self.deal = deal
        id = deal.dealID
        row = FeedRow(
            price: deal.price.minorUnits, expiresAtUnixMs: deal.expiresAtUnixMs, score: deal.score.score,
            departureDay: Int32(truncatingIfNeeded: departure.daysSinceEpoch), departureMonth: Int32(departure.year * 100 + departure.month),
            stops: deal.stops,
            origin: codes.intern(deal.origin), originMetro: codes.intern(metroOf[deal.origin] ?? ""),
            destination: codes.intern(deal.destination), destinationMetro: codes.intern(metroOf[deal.destination] ?? ""),
            carrier: codes.intern(deal.carrier), currency: codes.intern(deal.price.currency),
            cabin: Int32(truncatingIfNeeded: deal.cabin.rawValue), international: deal.originCountry != deal.destinationCountry)
        var item = FeedItem()
        item.deal = deal
        item.queueScore = Double(deal.score.score)
        self.item = item
    }

    var score: Int32 { row.score }
    var expiresAtUnixMs: Int64 { row.expiresAtUnixMs }
}
