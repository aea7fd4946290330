import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import FareLensGateway

/// The track record inside each deal and alert (issue #59): each route's
/// 30-day window, kept ten minutes, never holding a page up.
@Suite("Gateway: each route's track record inside feed items and alerts")
struct RouteTrackRecordsTests {
    /// Analytics' stand-in: answers every route but `failing`, counting the questions per route.
    final class Analytics: Sendable {
        let asked = Locked<[String: Int]>([:])
        let inFlight = Locked((now: 0, most: 0))
        let failing: Set<String>

        init(failing: Set<String> = []) { self.failing = failing }

        struct Away: Error {}

        func answer(_ request: RouteTrackRecordRequest) async throws -> RouteTrackRecordResponse {
            let route = "\(request.origin)-\(request.destination)"
            asked.update { $0[route, default: 0] += 1 }
            inFlight.update { $0.now += 1; $0.most = max($0.most, $0.now) }
            try? await Task.sleep(for: .milliseconds(5))  // safe: lets the asks of one page overlap, so the concurrency bound is seen
            inFlight.update { $0.now -= 1 }
            guard !failing.contains(route) else { throw Away() }
            var response = RouteTrackRecordResponse()
            response.windows = [7, 30, 90].map { days in
                var window = TrackRecordWindow()
                window.days = Int32(days)
                window.summary = "\(route) \(days)"
                return window
            }
            return response
        }
    }

    static func route(_ text: String) -> RouteTrackRecords.Route {
        let codes = text.split(separator: "-").map(String.init)
        return .init(origin: codes[0], destination: codes[1])
    }

    @Test("each route is asked once and kept ten minutes; a route analytics cannot answer for is left out and asked again after 30 seconds, not before")
    func keptAndRetried() async throws {
        let clock = Locked(0.0)
        let records = RouteTrackRecords(now: { clock.get() })
        let analytics = Analytics(failing: ["LIS-NYC"])
        let routes: Set = [Self.route("LON-BCN"), Self.route("LIS-NYC")]
        let first = await records.windows(for: routes, ask: analytics.answer)
        #expect(first.count == 1 && first[Self.route("LON-BCN")]?.summary == "LON-BCN 30", "the 30-day window")
        _ = await records.windows(for: routes, ask: analytics.answer)
        #expect(analytics.asked.get() == ["LON-BCN": 1, "LIS-NYC": 1], "both kept: the failure for 30 s")
        clock.set(31)
        let retried = await records.windows(for: routes, ask: analytics.answer)
        #expect(retried.count == 1 && analytics.asked.get() == ["LON-BCN": 1, "LIS-NYC": 2])
        clock.set(601)
        _ = await records.windows(for: routes, ask: analytics.answer)
        #expect(analytics.asked.get() == ["LON-BCN": 2, "LIS-NYC": 3])
    }

    @Test("a page of 20 routes asks at most 8 at once, and every route gets its record")
    func boundedConcurrency() async throws {
        let records = RouteTrackRecords(now: { 0 })
        let analytics = Analytics()
        let routes = Set((0 ..< 20).map { RouteTrackRecords.Route(origin: "A\(Character(UnicodeScalar(65 + $0)!))A", destination: "BCN") })
        let windows = await records.windows(for: routes, ask: analytics.answer)
        #expect(windows.count == 20 && analytics.asked.get().count == 20)
        #expect(analytics.inFlight.get().most <= RouteTrackRecords.concurrentAsks, "\(analytics.inFlight.get().most) asked at once")
    }

    @Test("a feed page's deals and a history's alerts get their route's record; an alert without a route, or a route without one, gets none")
    func annotation() async throws {
        let records = RouteTrackRecords(now: { 0 })
        let analytics = Analytics(failing: ["MAD-PAR"])
        var page = DealFeedResponse()
        page.items = ["LON-BCN", "MAD-PAR", "LON-BCN"].map { route in
            var item = FeedItem()
            (item.deal.origin, item.deal.destination) = (Self.route(route).origin, Self.route(route).destination)
            return item
        }
        page.annotate(with: await records.windows(for: page.trackRecordRoutes, ask: analytics.answer))
        #expect(page.items.map(\.trackRecord.summary) == ["LON-BCN 30", "", "LON-BCN 30"] && !page.items[1].hasTrackRecord)

        var history = AlertHistoryResponse()
        history.alerts = [("LON", "BCN"), ("", "")].map { origin, destination in
            var alert = AlertRecord()
            (alert.origin, alert.destination) = (origin, destination)
            return alert
        }
        #expect(history.trackRecordRoutes == [Self.route("LON-BCN")], "a digest has no route to ask about")
        history.annotate(with: await records.windows(for: history.trackRecordRoutes, ask: analytics.answer))
        #expect(history.alerts[0].trackRecord.summary == "LON-BCN 30" && !history.alerts[1].hasTrackRecord)
        #expect(analytics.asked.get() == ["LON-BCN": 1, "MAD-PAR": 1], "the history's route was kept from the feed page")
    }
}
