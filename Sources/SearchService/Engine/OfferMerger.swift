public import FareLensMessages

/// One seller's price for an itinerary, kept for booking options.
public struct BookingQuote: Sendable, Hashable {
    public let provider: String
    public let price: Money
    public let link: String
    public let simulated: Bool
}

/// An offer as served, with every seller's quote for its itinerary.
public struct MergedOffer: Sendable {
    public var offer: FlightOffer
    public var quotes: [BookingQuote]
}

/// Merges offers from several providers: the same itinerary (flight
/// numbers, departure times, cabin) quoted twice becomes one offer at the
/// lowest price, remembering every quote; the result is sorted by total,
/// lowest first, and each offer gets an id stable for the same itinerary
/// (`of-` and 16 hex digits).
enum OfferMerger {
    static func merge(_ offers: [FlightOffer]) -> [MergedOffer] {
        var byKey: [String: MergedOffer] = [:]
        var order: [String] = []
        for offer in offers {
            let key = itineraryKey(offer)
            let quote = BookingQuote(provider: offer.provider, price: offer.price, link: offer.bookingLink, simulated: offer.simulated)
            if var existing = byKey[key] {
                if !existing.quotes.contains(where: { $0.provider == quote.provider }) { existing.quotes.append(quote) }
                if offer.price.minorUnits < existing.offer.price.minorUnits { existing.offer = offer }
                byKey[key] = existing
            } else {
                order.append(key)
                byKey[key] = MergedOffer(offer: offer, quotes: [quote])
            }
        }
        return order.compactMap { key in
            guard var merged = byKey[key] else { return nil }
            let digits = String(StableRandom(seed: 0).bits(key), radix: 16)
            // 16 digits always: a hash with leading zeros made shorter ids.
            merged.offer.offerID = "of-" + String(repeating: "0", count: 16 - digits.count) + digits
            merged.quotes.sort { $0.price.minorUnits < $1.price.minorUnits }
            return merged
        }.sorted { ($0.offer.price.minorUnits, $0.offer.offerID) < ($1.offer.price.minorUnits, $1.offer.offerID) }
    }

    static func itineraryKey(_ offer: FlightOffer) -> String {
        let times = (offer.outbound.segments + offer.inbound.segments).map(\.departureLocal).joined(separator: ",")
        return "\(offer.flightNumbers.joined(separator: ","))|\(times)|\(offer.cabin.rawValue)|\(offer.price.currency)"
    }
}
