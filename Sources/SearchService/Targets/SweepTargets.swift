/// What, besides the fare data's busiest routes, the market sweep should
/// search: asked at the start of every sweep.
public protocol SweepTargets: Sendable {
    /// Routes on active watchlists, most watched first.
    func watchedRoutes() async -> [MarketSweep.Route]
    /// Airports users prefer, most preferred first.
    func preferredAirports() async -> [String]
}
