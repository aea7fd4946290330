public import FareLensMessages
public import Foundation
public import Logging

/// The background market sweep (SPEC §1): searches the routes that matter
/// with purpose `BACKGROUND_SWEEP` (so live providers stop at 90% of quota)
/// and lets the engine publish every observed fare.
///
/// Routes, in this order, without repeats: the routes on active watchlists
/// (most watched first), the most-observed departures from the airports
/// users prefer (most preferred first), then the most-observed routes of the
/// real fare data. The first two are asked over the bus at each sweep
/// (``SweepTargets``), never read from another service's tables.
public struct MarketSweep: Sendable {
    /// What one sweep did.
    public struct Summary: Sendable, Equatable {
        public var searches = 0
        public var offers = 0
        public var failures = 0
        /// The sweep's task was cancelled (the service stopping) before it searched every route and date.
        public var stopped = false
    }

    /// One route swept, in one cabin.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public var origin: String
        public var destination: String
        public var cabin: Cabin = .economy
        public var description: String { cabin == .economy ? "\(origin)-\(destination)" : "\(origin)-\(destination)/\(cabin)" }
    }

    let engine: SearchEngine
    /// The most-observed routes of the fare data, most observed first.
    let routes: [(String, String)]
    let daysAhead: [Int]
    let targets: (any SweepTargets)?
    /// Most departures swept from each preferred airport.
    let departuresPerAirport: Int
    let logger: Logger

    /// A sweep over the `count` most-observed routes, `daysAhead` days out,
    /// plus what `targets` names at each sweep.
    public init(
        engine: SearchEngine, table: RouteFareTable, directory: AirportDirectory, count: Int, daysAhead: [Int],
        targets: (any SweepTargets)? = nil, departuresPerAirport: Int = 3, logger: Logger
    ) {
        self.engine = engine
        self.routes = table.all
            .sorted { ($0.value.observations, $1.key) > ($1.value.observations, $0.key) }
            .compactMap { key, _ -> (String, String)? in
                let codes = key.split(separator: "-").map(String.init)
                guard codes.count == 2, directory.knows(codes[0]), directory.knows(codes[1]) else { return nil }
                return (codes[0], codes[1])
            }
        self.daysAhead = daysAhead
        self.targets = targets
        self.departuresPerAirport = departuresPerAirport
        self.logger = logger
        self.count = count
    }

    /// How many of the most-observed routes each sweep includes.
    let count: Int

    /// The most-observed routes swept on every sweep, in order.
    public var sweptRoutes: [(String, String)] { Array(routes.prefix(count)) }

    /// The routes of one sweep: `watched`, then up to `departuresPerAirport`
    /// most-observed departures from each of `preferred`, then the
    /// most-observed routes; each route and cabin once.
    public func plan(watched: [Route], preferred: [String]) -> [Route] {
        var plan: [Route] = []
        var seen = Set<Route>()
        func add(_ route: Route) { if seen.insert(route).inserted { plan.append(route) } }
        watched.forEach(add)
        for airport in preferred {
            for (origin, destination) in routes.lazy.filter({ $0.0 == airport }).prefix(departuresPerAirport) {
                add(Route(origin: origin, destination: destination))
            }
        }
        for (origin, destination) in sweptRoutes { add(Route(origin: origin, destination: destination)) }
        return plan
    }

    /// One pass over every route and date, or until the task is cancelled
    /// (the service stopping): then no further search starts, and the
    /// summary says it ``Summary/stopped``.
    public func sweepOnce(now: Date) async -> Summary {
        let watched = await targets?.watchedRoutes() ?? []
        let preferred = await targets?.preferredAirports() ?? []
        let plan = plan(watched: watched, preferred: preferred)
        var summary = Summary()
        let total = plan.count * daysAhead.count
        logger.info("market sweep starts", metadata: ["routes": "\(plan.count)", "watched": "\(watched.count)", "preferredAirports": "\(preferred.count)"])
        sweeping: for (index, route) in plan.enumerated() {
            for days in daysAhead {
                // Stopping: each search left would fail at once, and its events be refused (the service's publisher has finished).
                guard !Task.isCancelled else {
                    summary.stopped = true
                    break sweeping
                }
                var request = SearchFlightsRequest()
                request.origin = route.origin
                request.destination = route.destination
                request.cabin = route.cabin
                request.departureDate = CalendarDate.of(now, in: .gmt).adding(days: days).message
                request.adults = 1
                request.purpose = .backgroundSweep
                summary.searches += 1
                do {
                    summary.offers += try await engine.search(request).offers.count
                } catch {
                    summary.failures += 1
                    logger.debug("sweep search failed", metadata: ["route": "\(route)", "error": "\(error)"])
                }
            }
            if (index + 1) % 10 == 0 {
                logger.info("market sweep progress", metadata: ["searches": "\(summary.searches)/\(total)"])
            }
        }
        logger.info(
            summary.stopped ? "market sweep stopped: the service is stopping" : "market sweep done",
            metadata: ["searches": "\(summary.searches)/\(total)", "offers": "\(summary.offers)", "failures": "\(summary.failures)"])
        return summary
    }
}
