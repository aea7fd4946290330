import FareLensBus
import FareLensMessages
import Foundation

/// The re-check just before delivery: phantom fares are what users of deal apps resent most.
extension AlertDelivery {
    /// Searches the alert's route, dates and cabin once more (search answers
    /// from its cache when it holds a result; one fetched within 30 minutes
    /// counts) and returns the lowest price for one adult. Nil — deliver as
    /// decided — when the alert has no dates, search cannot be asked, or the
    /// answer is stale or older than 30 minutes: only a price *known* to
    /// have risen stops an alert.
    static func searchRecheck(_ alert: AlertRow, bus: MessageBus, now: Date) async -> Money? {
        guard let departure = CalendarDate(iso: alert.departureDate) else { return nil }
        var request = SearchFlightsRequest()
        request.origin = alert.origin
        request.destination = alert.destination
        request.departureDate = departure.message
        if let back = CalendarDate(iso: alert.returnDate) { request.returnDate = back.message }
        request.adults = 1
        request.cabin = Cabin(rawValue: alert.cabin) ?? .economy
        let tier = Tier(rawValue: alert.tier) ?? .free
        request.purpose = tier == .pro || tier == .trial ? .proWatchlist : .freeWatchlist
        request.userID = alert.userID
        // A stale answer, or one cached over 30 minutes ago, says nothing of the fare now.
        guard let answer = try? await bus.request(request, timeout: .seconds(10)), answer.isFresh(at: now), let lowest = answer.offers.first else { return nil }
        return lowest.price
    }
}
