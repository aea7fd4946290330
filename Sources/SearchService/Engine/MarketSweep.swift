import FareLensMessages
public import Foundation
public import Logging

/// The background market sweep (SPEC §1): searches the routes that matter
/// with purpose `BACKGROUND_SWEEP` (so live providers stop at 90% of quota)
/// and lets the engine publish every observed fare.
///
/// Routes today: the most-observed routes of the real fare data. Routes on
/// watchlists and preferred-airport departures join when those services
/// answer a route listing (not built yet; see docs/search.md).
public struct MarketSweep: Sendable {
    /// What one sweep did.
    public struct Summary: Sendable, Equatable {
        public var searches = 0
        public var offers = 0
        public var failures = 0
    }

    let engine: SearchEngine
    let routes: [(String, String)]
    let daysAhead: [Int]
    let logger: Logger

    /// A sweep over the `count` most-observed routes, `daysAhead` days out.
    public init(engine: SearchEngine, table: RouteFareTable, directory: AirportDirectory, count: Int, daysAhead: [Int], logger: Logger) {
        self.engine = engine
        self.routes = table.all
            .sorted { ($0.value.observations, $1.key) > ($1.value.observations, $0.key) }
            .compactMap { key, _ -> (String, String)? in
                let codes = key.split(separator: "-").map(String.init)
                guard codes.count == 2, directory.knows(codes[0]), directory.knows(codes[1]) else { return nil }
                return (codes[0], codes[1])
            }
            .prefix(count).map { $0 }
        self.daysAhead = daysAhead
        self.logger = logger
    }

    /// The routes swept, in order.
    public var sweptRoutes: [(String, String)] { routes }

    /// One pass over every route and date.
    public func sweepOnce(now: Date) async -> Summary {
        var summary = Summary()
        let total = routes.count * daysAhead.count
        for (index, (origin, destination)) in routes.enumerated() {
            for days in daysAhead {
                var request = SearchFlightsRequest()
                request.origin = origin
                request.destination = destination
                request.departureDate = CalendarDate.of(now, in: .gmt).adding(days: days).message
                request.adults = 1
                request.purpose = .backgroundSweep
                summary.searches += 1
                do {
                    summary.offers += try await engine.search(request).offers.count
                } catch {
                    summary.failures += 1
                    logger.debug("sweep search failed", metadata: ["route": "\(origin)-\(destination)", "error": "\(error)"])
                }
            }
            if (index + 1) % 10 == 0 {
                logger.info("market sweep progress", metadata: ["searches": "\(summary.searches)/\(total)"])
            }
        }
        logger.info("market sweep done", metadata: ["searches": "\(summary.searches)", "offers": "\(summary.offers)", "failures": "\(summary.failures)"])
        return summary
    }
}
