import FareLensMessages
import Foundation

/// The pure parts of one watchlist check (SPEC §3): what to ask search,
/// how the lowest price compares with the previous one, and the threshold's
/// once-per-crossing rule. ``WatchlistService`` runs them around the search.
enum PriceCheck {
    /// "Any dates" watchlists look at departures this many days after the
    /// user's today (± `flexibleWindowDays`).
    static let flexibleLookAheadDays = 30
    /// Search's flexible window around the look-ahead departure.
    static let flexibleWindowDays: Int32 = 3
    /// After a crossing, the price must rise above the threshold by this
    /// share (basis points; 200 = 2%), and by at least one minor unit, before
    /// the threshold re-arms.
    static let hysteresisBasisPoints: Int64 = 200

    /// The search a check makes: the fixed trip as it is, or for "any dates"
    /// a departure `flexibleLookAheadDays` ahead ±`flexibleWindowDays` with
    /// the middle trip length (searches keep the length while shifting).
    ///
    /// - Returns: nil when a fixed trip's departure has passed (nothing left to check).
    static func searchRequest(for watchlist: WatchlistRecord, pro: Bool, today: CalendarDate) -> SearchFlightsRequest? {
        var request = baseRequest(for: watchlist, pro: pro)
        if watchlist.flexible {
            let departure = today.adding(days: flexibleLookAheadDays)
            request.departureDate = departure.message
            if watchlist.maxTripDays > 0 {
                request.returnDate = departure.adding(days: (watchlist.minTripDays + watchlist.maxTripDays) / 2).message
            }
            request.flexibleDays = flexibleWindowDays
        } else {
            let departure = LocalDateNumber.message(watchlist.departureDate)
            guard let day = CalendarDate(departure), day >= today else { return nil }
            request.departureDate = departure
            if watchlist.returnDate != 0 { request.returnDate = LocalDateNumber.message(watchlist.returnDate) }
        }
        return request
    }

    /// A search for the watchlist's route, cabin and one adult, with the
    /// purpose that sets its cache lifetime and quota class; no dates yet.
    static func baseRequest(for watchlist: WatchlistRecord, pro: Bool) -> SearchFlightsRequest {
        var request = SearchFlightsRequest()
        request.origin = watchlist.origin
        request.destination = watchlist.destination
        request.adults = 1
        request.cabin = Cabin(rawValue: watchlist.cabin) ?? .economy
        request.purpose = pro ? .proWatchlist : .freeWatchlist
        request.userID = watchlist.userID
        return request
    }

    /// The change from `previous` to `current` in minor units and basis
    /// points of `previous`; nil when there is no previous price, or it is
    /// in another currency or zero.
    static func change(from previous: Money?, to current: Money) -> (amount: Int64, basisPoints: Int)? {
        guard let previous, previous.currency == current.currency, previous.minorUnits > 0 else { return nil }
        let amount = current.minorUnits - previous.minorUnits
        let basisPoints = (Double(amount) * 10_000 / Double(previous.minorUnits)).rounded()
        return (amount, Int(basisPoints))
    }

    /// The threshold's next state after a check found `price`.
    ///
    /// - Parameters:
    ///   - wasBelow: the state after the previous check.
    /// - Returns: `below`, the new state; `crossed`, whether this check
    ///   crossed (publish `ThresholdCrossed`): the price is at or below the
    ///   threshold and the state was not already below. A price in another
    ///   currency than the threshold changes nothing.
    static func threshold(_ threshold: Money?, price: Money, wasBelow: Bool) -> (below: Bool, crossed: Bool) {
        guard let threshold, threshold.currency == price.currency else { return (wasBelow, false) }
        if price.minorUnits <= threshold.minorUnits { return (true, !wasBelow) }
        guard wasBelow else { return (false, false) }
        let margin = max(1, threshold.minorUnits * hysteresisBasisPoints / 10_000)
        return (price.minorUnits <= threshold.minorUnits + margin, false)
    }
}
