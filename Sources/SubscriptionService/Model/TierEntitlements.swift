public import FareLensMessages

/// The one place that says what each tier allows (SPEC §4). No other
/// service hard-codes a limit: they ask `GetEntitlements` or read the
/// entitlements carried by `TierChanged`.
public enum TierEntitlements {
    /// A trial lasts 14 days and has Pro's entitlements.
    public static let trialDays = 14

    /// What `tier` allows. Trial and Pro: unlimited watchlists, 6 immediate
    /// alerts a day, every deal, 3 preferred airports, no ads, 60 trips per
    /// check of a flexible watchlist's date range. Free (and an unspecified
    /// tier): 5, 3, 20, 1, ads, 8.
    public static func of(_ tier: Tier) -> Entitlements {
        var entitlements = Entitlements()
        entitlements.tier = tier
        switch tier {
        case .trial, .pro:
            entitlements.immediateAlertsPerDay = 6
            entitlements.preferredAirports = 3
            entitlements.ads = false
            entitlements.flexibleDatePairs = 60
        default:
            entitlements.activeWatchlists = 5
            entitlements.immediateAlertsPerDay = 3
            entitlements.visibleDeals = 20
            entitlements.preferredAirports = 1
            entitlements.ads = true
            entitlements.flexibleDatePairs = 8
        }
        return entitlements
    }

    /// The tier's name as users see it.
    public static func name(_ tier: Tier) -> String {
        switch tier {
        case .trial: "trial"
        case .pro: "Pro"
        case .free: "Free"
        default: "no tier"
        }
    }
}
