import FareLensMessages
@testable import SearchService
import Testing

/// Offer ids are one length (issue #63: a hash with leading zeros gave
/// ids of 15 or fewer hex digits).
@Suite("Offer ids")
struct OfferIDTests {
    @Test("every offer id is 'of-' and 16 lowercase hex digits, leading zeros kept, over 256 itineraries")
    func oneLength() {
        let offers = (0 ..< 256).map { index in
            var offer = FlightOffer()
            offer.flightNumbers = ["TP\(index)"]
            offer.cabin = .economy
            offer.price.currency = "EUR"
            offer.price.minorUnits = Int64(10_000 + index)
            return offer
        }
        let ids = OfferMerger.merge(offers).map(\.offer.offerID)
        #expect(ids.count == 256)
        let malformed = ids.filter { id in
            !(id.hasPrefix("of-") && id.utf8.count == 19 && id.dropFirst(3).allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(malformed.isEmpty, "\(malformed)")
    }
}
