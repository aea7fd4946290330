@testable import AlertsService
@testable import AnalyticsService
import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensTesting
import Foundation
import GRDB
import Testing

/// The route's track record inside each push (issue #59): alerts keeps what
/// analytics tells (`RouteTrackRecordChanged`) and puts the summary into
/// the APNs payload and the webhook's body, asking analytics nothing.
@Suite struct PushTrackRecordTests {
    static func told(_ origin: String, _ destination: String, _ summary: String, at instant: Date) -> RouteTrackRecordChanged {
        var event = RouteTrackRecordChanged()
        (event.origin, event.destination, event.atUnixMs) = (origin, destination, instant.unixMilliseconds)
        (event.window.days, event.window.summary, event.window.enoughAlerts) = (30, summary, true)
        return event
    }

    static func payload(_ alert: OutboundAlert) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: alert.body) as? [String: Any])
    }

    @Test("a push carries its route's 30-day track record as analytics last told it; a record told more than two days ago, an older telling arriving late, or none: no stale claim; the webhook's body carries the same")
    func pushCarriesTheRecord() async throws {
        let webhook = RecordingChannel(.webhook)
        let push = RecordingChannel(.push)
        let fixture = try AlertsFixture(channels: [webhook, push])
        let ana = try await fixture.user("ana@example.com", tier: .pro)
        _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
        let now = fixture.clock.now()
        let records = fixture.alerts.trackRecords
        records.apply(Self.told("JFK", "NRT", "97% of our JFK→NRT alerts in the last 30 days were still bookable.", at: now))
        records.apply(Self.told("JFK", "NRT", "an older telling, arriving late", at: now.addingTimeInterval(-60)))
        records.apply(Self.told("JFK", "LAX", "told three days ago", at: now.addingTimeInterval(-3 * 86_400)))
        let decided = await fixture.alerts.decide([
            fixture.crossing(ana, "JFK", "NRT", sequence: 1), fixture.crossing(ana, "JFK", "LAX", sequence: 2), fixture.crossing(ana, "JFK", "SFO", sequence: 3),
        ])
        #expect(decided.map(\.decisionValue) == [.sent, .sent, .sent])
        await fixture.alerts.delivery.deliverDue()
        let byRoute = Dictionary(uniqueKeysWithValues: try push.received.get().map { alert in (try Self.payload(alert)["route"] as? String ?? "", try Self.payload(alert)) })
        #expect(byRoute["JFK-NRT"]?["track_record"] as? String == "97% of our JFK→NRT alerts in the last 30 days were still bookable.")
        #expect(byRoute["JFK-LAX"]?.keys.contains("track_record") == false, "told three days ago: stale")
        #expect(byRoute["JFK-SFO"]?.keys.contains("track_record") == false, "never told")
        // The webhook's body carries the same sentence under data.track_record, for the same routes.
        let hooks = try webhook.received.get().map { alert in try #require(try Self.payload(alert)["data"] as? [String: Any]) }
        let hookRecords = Dictionary(uniqueKeysWithValues: hooks.map { ("\($0["origin"] ?? "")-\($0["destination"] ?? "")", $0["track_record"] as? String) })
        #expect(hookRecords == ["JFK-NRT": "97% of our JFK→NRT alerts in the last 30 days were still bookable.", "JFK-LAX": String?.none, "JFK-SFO": String?.none])
    }

    @Test("analytics on one node tells the record of the alerts it heard; alerts on the other keeps it and its next push carries it", arguments: MeshShape.allCases)
    func toldAcrossNodes(shape: MeshShape) async throws {
        final class Holder: Sendable {
            let fixture = Locked<AlertsFixture?>(nil)
            let analytics = Locked<AnalyticsService?>(nil)
        }
        let holder = Holder()
        let push = RecordingChannel(.push)
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            // Subscription, watchlist, the directory and analytics on the server; alerts on the client.
            let fixture = try AlertsFixture(bus: server, alertsBus: client, channels: [push])
            holder.fixture.set(fixture)
            let database = try AlertsFixture.database("analytics", AnalyticsServiceEntry.descriptor.migrations)
            let made = try AnalyticsServiceEntry.descriptor.make(ServiceContext(bus: server, database: database, logger: quietLogger(), clock: fixture.clock))
            try made.register(on: server)
            holder.analytics.set(made as? AnalyticsService)
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let analytics = try #require(holder.analytics.get())
            let ana = try await fixture.user("ana@example.com", tier: .pro)
            _ = try await DeviceRegistryTests.register(fixture, ana, PushKit.token(1))
            let alertsTask = Task { try await fixture.alerts.run() }
            defer { alertsTask.cancel() }
            let analyticsTask = Task { try await analytics.run() }
            defer { analyticsTask.cancel() }
            var crossing = fixture.crossingEvent(ana)
            crossing.checkID = "c-1"
            try await mesh.serverBus.publish(crossing)
            var request = RouteTrackRecordRequest()
            (request.origin, request.destination) = ("JFK", "NRT")
            try await waitUntil("analytics heard the decision") { ((try? await analytics.trackRecord(request))?.windows[1].alertsSent ?? 0) == 1 }
            #expect(await analytics.tellTrackRecords() == 1)
            let summary = try await analytics.trackRecord(request).windows[1].summary
            try await waitUntil("alerts keeps the told record") {
                let kept = try? await fixture.database.writer.read { db in try RouteTrackRecordRow.fetchOne(db, key: ["origin": "JFK", "destination": "NRT"]) }
                return kept?.summary == summary
            }
            // The next alert on the route carries it: the next morning in New York (past the 12-hour dedupe and quiet hours).
            fixture.clock.advance(by: 20 * 3_600)
            var next = fixture.crossingEvent(ana, cents: 60_000)
            next.checkID = "c-2"
            try await mesh.serverBus.publish(next)
            try await waitUntil("both pushes delivered") { push.received.get().count == 2 }
            let payloads = try push.received.get().map(Self.payload)
            #expect(payloads.map { $0["track_record"] as? String } == [nil, summary])
        }
    }
}
