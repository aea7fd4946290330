public import FareLensBus
import FareLensMessages
public import Logging

/// What, besides the fare data's busiest routes, the market sweep should
/// search: asked at the start of every sweep.
public protocol SweepTargets: Sendable {
    /// Routes on active watchlists, most watched first.
    func watchedRoutes() async -> [MarketSweep.Route]
    /// Airports users prefer, most preferred first.
    func preferredAirports() async -> [String]
}

/// Asks the watchlist service (`WatchedRoutes`) and the subscription service
/// (`PreferredAirportSummary`) over the bus. A service that does not answer
/// (not running in this mesh, or down) adds nothing to this sweep; the sweep
/// goes on with the rest.
public struct BusSweepTargets: SweepTargets {
    let bus: MessageBus
    /// Most watched routes and preferred airports taken per sweep (the sweep's share of quota).
    let watchedLimit: Int
    let airportLimit: Int
    let logger: Logger

    public init(bus: MessageBus, watchedLimit: Int, airportLimit: Int, logger: Logger) {
        self.bus = bus
        self.watchedLimit = watchedLimit
        self.airportLimit = airportLimit
        self.logger = logger
    }

    public func watchedRoutes() async -> [MarketSweep.Route] {
        guard watchedLimit > 0 else { return [] }
        var request = WatchedRoutesRequest()
        request.limit = Int32(clamping: watchedLimit)
        do {
            return try await bus.request(request).routes.map { MarketSweep.Route(origin: $0.origin, destination: $0.destination, cabin: $0.cabin) }
        } catch {
            logger.notice("market sweep: watched routes unavailable; sweeping without them", metadata: ["error": "\(error)"])
            return []
        }
    }

    public func preferredAirports() async -> [String] {
        guard airportLimit > 0 else { return [] }
        var request = PreferredAirportSummaryRequest()
        request.limit = Int32(clamping: airportLimit)
        do {
            return try await bus.request(request).airports.map(\.airport)
        } catch {
            logger.notice("market sweep: preferred airports unavailable; sweeping without them", metadata: ["error": "\(error)"])
            return []
        }
    }
}
