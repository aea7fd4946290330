public import FareLensBus

/// Durable: a want that is lost leaves its consumer without the state it
/// missed until each piece of it changes.
///
/// Published by a service that keeps other services' state from their
/// events (alerts, search) when it starts without it; followed by the
/// services that announce that state (subscription, watchlist).
extension AnnouncementWanted: BusEvent {
    public static let topic = Topic("announcements.wanted", durable: true)

    /// Every user's preferences as they stand: subscription's
    /// `UserPreferencesChanged` with `announced` set.
    public static let userPreferences = "user-preferences"
    /// Every watchlist as it stands: watchlist's `WatchlistChanged(ANNOUNCED)`.
    public static let watchlists = "watchlists"
}
