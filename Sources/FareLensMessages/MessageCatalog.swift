public import FareLensBus

/// Every event type of the services, so a node can decode any event that arrives from another process (the wildcard subscriber needs all of them).
public enum MessageCatalog {
    /// All event types, grouped by publishing service.
    public static let events: [any BusEvent.Type] = [
        // search
        FareObserved.self,
        QuotaWarning.self,
        SearchCompleted.self,
        ProviderCalled.self,
        // scoring
        DealScored.self,
        ExceptionalDeal.self,
        // watchlist
        PriceChanged.self,
        ThresholdCrossed.self,
        WatchlistChanged.self,
        // subscription
        TierChanged.self,
        TrialEnding.self,
        PurchaseRecorded.self,
        UserPreferencesChanged.self,
        UserDeleted.self,
        // alerts
        AlertDecided.self,
        AlertDelivered.self,
        AlertDeliveryFailed.self,
        DeviceRemoved.self,
        // analytics
        RouteTrackRecordChanged.self,
        // alerts and search, which keep subscription's and watchlist's state from their events
        AnnouncementWanted.self,
    ]
}
