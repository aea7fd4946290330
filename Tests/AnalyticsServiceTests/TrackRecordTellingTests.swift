import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

/// Analytics tells each route's 30-day track record as it changes
/// (`RouteTrackRecordChanged`), so alerts can put it inside a push without
/// asking (issue #59, the house's one-way request graph).
@Suite("Track record: told to the services that show it")
struct TrackRecordTellingTests {
    static func told(_ events: EventSubscription<RouteTrackRecordChanged>, _ count: Int) async throws -> [RouteTrackRecordChanged] {
        try await firstEvents(count, of: events).map(\.self)
    }

    @Test("a route's record is told when it changes or a day after it was last told, never twice within the day unchanged; a route whose alerts left the 30 days is told once more, empty, then no more")
    func toldAsItChanges() async throws {
        let fixture = try AnalyticsFixture()
        let heard = fixture.bus.subscribe(RouteTrackRecordChanged.self)
        let records = TrackRecordTests()
        await fixture.publish((1 ... 21).map { records.decided("a-\($0)", "LON", "BCN", .sent, daysAgo: 2) } + [records.decided("b-1", "LIS", "NYC", .sent, daysAgo: 29)])

        #expect(await fixture.service.tellTrackRecords() == 2)
        let first = try await Self.told(heard, 2).sorted { $0.origin < $1.origin }
        #expect(first.map { "\($0.origin)-\($0.destination)" } == ["LIS-NYC", "LON-BCN"])
        let lonBCN = try #require(first.last)
        #expect(lonBCN.window.days == 30 && lonBCN.window.alertsSent == 21 && lonBCN.window.enoughAlerts)
        #expect(lonBCN.window.summary == (try await fixture.service.trackRecord(records.request("LON", "BCN")).windows[1].summary), "the summary the API shows")
        #expect(lonBCN.atUnixMs == fixture.clock.now().unixMilliseconds)
        // Unchanged within the day: not told again.
        fixture.clock.advance(by: 3_600)
        #expect(await fixture.service.tellTrackRecords() == 0)
        // A new alert on LON-BCN changes its record: only that route is told.
        await fixture.publish([records.decided("a-22", "LON", "BCN", .stalePrice, daysAgo: 0)])
        #expect(await fixture.service.tellTrackRecords() == 1)
        #expect(try await Self.told(heard, 1).map(\.window.stoppedByRecheck) == [1])
        // A day after: LON-BCN told again unchanged; LIS-NYC's one alert has left the 30 days: told once more, empty.
        fixture.clock.advance(by: 86_400)
        #expect(await fixture.service.tellTrackRecords() == 2)
        let later = try await Self.told(heard, 2).sorted { $0.origin < $1.origin }
        #expect(later.map(\.window.alertsSent) == [0, 21])
        #expect(later.first?.window.enoughAlerts == false)
        fixture.clock.advance(by: 86_400)
        #expect(await fixture.service.tellTrackRecords() == 1, "LIS-NYC no more; LON-BCN a day later again")
    }

    @Test("its own RouteTrackRecordChanged is counted per day, never kept raw (it names no user)")
    func notKeptRaw() async throws {
        let fixture = try AnalyticsFixture()
        var event = RouteTrackRecordChanged()
        (event.origin, event.destination) = ("LON", "BCN")
        await fixture.publish([event])
        let raw = try await fixture.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM service_event WHERE topic = ?", arguments: [RouteTrackRecordChanged.topic.name]) }
        #expect(raw == 0)
    }
}
