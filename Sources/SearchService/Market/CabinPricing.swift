public import FareLensMessages

/// Cabin prices as multiples of the economy fare, by haul (see docs/search.md
/// § How the simulated market chooses carriers and prices cabins). The ratios
/// are rough industry ratios, hand-chosen; they come from no data set.
public enum CabinPricing {
    /// Routes at least this long (great-circle) are long-haul: no low-cost or
    /// regional carrier flies them nonstop, premium economy and first are sold
    /// only on them, and the long-haul ratios apply.
    public static let longHaulKilometres = 4_000.0

    /// The price of `cabin` relative to economy on a route of `kilometres`.
    public static func factor(_ cabin: Cabin, kilometres: Double) -> Double {
        let longHaul = kilometres >= longHaulKilometres
        switch cabin {
        case .premiumEconomy: return longHaul ? 1.7 : 1.5
        case .business: return longHaul ? 4.5 : 2.5
        case .first: return longHaul ? 8.5 : 3.5
        default: return 1
        }
    }

    /// Whether `airline` sells `cabin` on a route of `routeKilometres`
    /// (great-circle, as for the price ratio): premium economy and first only
    /// on long-haul routes, and only cabins the airline lists.
    static func sells(_ airline: AirlineRecord, _ cabin: Cabin, routeKilometres: Double) -> Bool {
        switch cabin {
        case .economy, .unspecified: return true
        case .business: return airline.cabins.contains(.business)
        case .premiumEconomy, .first: return routeKilometres >= longHaulKilometres && airline.cabins.contains(cabin)
        case .UNRECOGNIZED: return false
        }
    }
}
