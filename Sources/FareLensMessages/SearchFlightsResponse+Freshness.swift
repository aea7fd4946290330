public import Foundation

extension SearchFlightsResponse {
    /// How old a search answer may be and still say what a fare costs now,
    /// for a re-check (the alerts' before delivery, analytics' after a click).
    public static let recheckFreshness: TimeInterval = 30 * 60

    /// Whether this answer says what fares cost at `now`: not search's stale
    /// fallback, and, when cached, observed at most `maximumAge` before `now`.
    public func isFresh(at now: Date, maximumAge: TimeInterval = recheckFreshness) -> Bool {
        !stale && !(fromCache && now.timeIntervalSince(Date(unixMilliseconds: observedAtUnixMs)) > maximumAge)
    }
}
