public import FareLensMessages
import Foundation

/// Booking options for an offer (SPEC §1): every seller's price sorted by
/// total; the lowest is always first (labelled `lowest`) even when it earns
/// nothing; an affiliate within 7% of the lowest is the secondary choice;
/// affiliate links carry the attribution sub-id
/// `ios-fl-{dealId}-{watchlist or none}-{placement}-{abVariant}-{tier}`
/// (``AttributionSubID``).
public struct BookingOptionsBuilder: Sendable {
    /// Sellers that pay a commission (configuration `search.affiliates`).
    public let affiliates: Set<String>

    public init(affiliates: Set<String>) { self.affiliates = affiliates }

    /// Options for `quotes` (any order).
    ///
    /// - Throws: ``SearchError`` `invalid-field` for a missing placement or
    ///   tier, or a field that would break the sub-id.
    public func options(for quotes: [BookingQuote], request: BookingOptionsRequest) throws(SearchError) -> [BookingOption] {
        let subID = try Self.subID(request)
        let sorted = quotes.sorted { ($0.price.minorUnits, $0.provider) < ($1.price.minorUnits, $1.provider) }
        guard let lowest = sorted.first else { return [] }
        var secondaryChosen = false
        return sorted.enumerated().map { index, quote in
            var option = BookingOption()
            option.provider = quote.provider
            option.total = quote.price
            option.simulated = quote.simulated
            option.affiliate = affiliates.contains(quote.provider)
            option.label = index == 0 ? .lowest : (option.affiliate ? .affiliate : .unspecified)
            if index > 0, option.affiliate, !secondaryChosen,
               quote.price.minorUnits * 100 <= lowest.price.minorUnits * 107 {
                option.secondary = true
                secondaryChosen = true
            }
            option.subID = option.affiliate ? subID : ""
            option.link = option.affiliate ? Self.link(quote.link, subID: subID, provider: quote.provider) : quote.link
            return option
        }
    }

    /// The attribution sub-id, as ``AttributionSubID`` writes it (a `-` in
    /// the deal id, watchlist id or A/B variant is written `__`).
    ///
    /// - Throws: ``SearchError`` `invalid-field` naming `placement`, `tier`,
    ///   `deal_id`, `watchlist_id` or `ab_variant`.
    public static func subID(_ request: BookingOptionsRequest) throws(SearchError) -> String {
        do {
            return try AttributionSubID(
                dealID: request.dealID, watchlistID: request.hasWatchlistID ? request.watchlistID : "",
                placement: request.placement, abVariant: request.abVariant, tier: request.tier
            ).text
        } catch {
            throw .invalidField(error.field, error.reason)
        }
    }

    /// `link` carrying the sub-id: Travelpayouts takes it in its marker
    /// (`marker=<marker>.<subID>`); others get a `sub_id` query parameter.
    public static func link(_ link: String, subID: String, provider: String = "") -> String {
        if provider == TravelpayoutsProvider.providerName { return TravelpayoutsProvider.addingSubID(subID, to: link) }
        guard !link.isEmpty, var components = URLComponents(string: link) else { return link }
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "sub_id" } + [URLQueryItem(name: "sub_id", value: subID)]
        return components.string ?? link
    }
}
