import FareLensMessages
import Synchronization

/// Each route's track record over the last 30 days (issue #59), shown
/// inside every deal of a feed page and every alert of the history: "shown
/// where the traveller decides". Kept ``maximumAge`` seconds per route, so a
/// page costs analytics one `RouteTrackRecord` per route it has not seen
/// lately, asked a few at once. A route analytics could not answer for is
/// shown without its record and asked again after ``failureAge`` seconds:
/// a page is never refused, nor held up for long, for want of one.
///
/// A lock, not an actor, like ``UserCurrencies``: every feed page reads it.
final class RouteTrackRecords: Sendable {
    /// How long a route's record is kept before analytics is asked again (its counts move by the day).
    static let maximumAge: Double = 600
    /// How long a route analytics did not answer for is shown without a record before it is asked again.
    static let failureAge: Double = 30
    /// At most this many routes are kept; past it the oldest half is forgotten.
    static let capacity = 10_000
    /// At most this many routes are asked at once for one page.
    static let concurrentAsks = 8
    /// The window shown inside payloads.
    static let shownDays: Int32 = 30

    /// A route as the payloads name it.
    struct Route: Hashable, Sendable {
        let origin: String
        let destination: String
    }

    private struct Kept {
        /// Nil: analytics did not answer.
        let window: TrackRecordWindow?
        let at: Double
    }

    private let known = Mutex<[Route: Kept]>([:])
    private let now: @Sendable () -> Double

    /// `now` is monotonic seconds (the rate limiter's clock).
    init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The 30-day window of each of `routes` that has one: the kept ones, and
    /// `ask`'s answers for the others (at most ``concurrentAsks`` at once).
    func windows(
        for routes: Set<Route>, ask: @escaping @Sendable (RouteTrackRecordRequest) async throws -> RouteTrackRecordResponse
    ) async -> [Route: TrackRecordWindow] {
        let instant = now()
        var found: [Route: TrackRecordWindow] = [:]
        var missing: [Route] = []
        known.withLock { known in
            for route in routes {
                if let kept = known[route], instant - kept.at < (kept.window == nil ? Self.failureAge : Self.maximumAge) {
                    if let window = kept.window { found[route] = window }
                } else {
                    missing.append(route)
                }
            }
        }
        guard !missing.isEmpty else { return found }
        let answers = await withTaskGroup(of: (Route, TrackRecordWindow?).self) { group in
            var pending = missing[...]
            func start(_ route: Route) {
                group.addTask {
                    var request = RouteTrackRecordRequest()
                    (request.origin, request.destination) = (route.origin, route.destination)
                    let window = try? await ask(request).windows.first { $0.days == Self.shownDays }
                    return (route, window)
                }
            }
            for _ in 0 ..< Self.concurrentAsks { if let route = pending.popFirst() { start(route) } }
            var answers: [(Route, TrackRecordWindow?)] = []
            while let answer = await group.next() {
                answers.append(answer)
                if let route = pending.popFirst() { start(route) }
            }
            return answers
        }
        known.withLock { known in
            if known.count + answers.count > Self.capacity {
                for route in known.sorted(by: { $0.value.at < $1.value.at }).prefix(Self.capacity / 2).map(\.key) { known[route] = nil }
            }
            for (route, window) in answers { known[route] = Kept(window: window, at: instant) }
        }
        for case let (route, window?) in answers { found[route] = window }
        return found
    }
}

extension DealFeedResponse {
    /// Routes of the page's deals.
    var trackRecordRoutes: Set<RouteTrackRecords.Route> {
        Set(items.map { RouteTrackRecords.Route(origin: $0.deal.origin, destination: $0.deal.destination) })
    }

    /// Puts each deal's route's record on its item.
    mutating func annotate(with windows: [RouteTrackRecords.Route: TrackRecordWindow]) {
        for index in items.indices {
            if let window = windows[RouteTrackRecords.Route(origin: items[index].deal.origin, destination: items[index].deal.destination)] {
                items[index].trackRecord = window
            }
        }
    }
}

extension AlertHistoryResponse {
    /// Routes of the alerts that have one (digests and trial notices do not).
    var trackRecordRoutes: Set<RouteTrackRecords.Route> {
        Set(alerts.filter { !$0.origin.isEmpty && !$0.destination.isEmpty }.map { RouteTrackRecords.Route(origin: $0.origin, destination: $0.destination) })
    }

    /// Puts each alert's route's record on it.
    mutating func annotate(with windows: [RouteTrackRecords.Route: TrackRecordWindow]) {
        for index in alerts.indices {
            if let window = windows[RouteTrackRecords.Route(origin: alerts[index].origin, destination: alerts[index].destination)] {
                alerts[index].trackRecord = window
            }
        }
    }
}
