import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Foundation
import Testing
@testable import AnalyticsService

@Suite("Analytics through the bus")
struct AnalyticsMeshTests {
    /// Set once `configure` has built it (the fixture needs the mesh's server bus).
    final class Holder: Sendable {
        let fixture = Locked<AnalyticsFixture?>(nil)
    }

    @Test(
        "events another node publishes reach analytics' wildcard subscription; client events, a commission, a report, an error, an opt-out checked with the subscription node, a click re-checked with the search node and a UserDeleted all go over the bus",
        arguments: MeshShape.allCases
    )
    func story(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            let clock = ManualWallClock(AnalyticsFixture.start)
            holder.fixture.set(try AnalyticsFixture(bus: server, clock: clock))
            // Subscription's stand-in on the other node: an opt-out's user is asked across the socket.
            try OptOutUserCheckTests.serveUsers(on: client)
            // Search's: a clicked fare is re-checked across the socket.
            _ = try ClickRecheckTests.serveSearch(on: client, clock: clock)
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let running = Task { try await fixture.service.run() }
            defer { running.cancel() }
            let client = mesh.clientBus
            let day = ms("2026-09-20")
            try await client.publish(Make.search("u-ana", .userSearch, cacheHit: true, at: day))
            try await client.publish(Make.search("u-ana", .userSearch, cacheHit: false, at: day))
            try await client.publish(Make.search("", .backgroundSweep, cacheHit: true, at: day))
            try await client.publish(Make.tier("u-ana", .unspecified, .trial, at: day))
            var decided = Make.decided("a1", "u-ana", .sent, at: day)
            (decided.alert.origin, decided.alert.destination, decided.alert.simulated) = ("LON", "BCN", true)
            try await client.publish(decided)
            // Delivered after the re-check confirmed its fare: the track record's confirmed count.
            var delivered = AlertDelivered()
            (delivered.alertID, delivered.userID, delivered.channel, delivered.attempts) = ("a1", "u-ana", .webhook, 1)
            (delivered.deliveredAtUnixMs, delivered.recheck) = (day, .confirmed)
            try await client.publish(delivered)
            try await waitUntil("analytics heard the 6 events") { await fixture.service.eventsHeard >= 6 }

            let opened = try await client.request(Make.client("o1", "u-ana", .alertOpened, at: day, alert: "a1"))
            #expect(opened.outcome == .recorded)
            #expect(try await client.request(Make.client("o1", "u-ana", .alertOpened, at: day, alert: "a1")).outcome == .duplicate)
            let click = Make.client("k1", "u-ana", .affiliateClicked, at: day, placement: .detail, subID: CommissionTests.detail)
            #expect(try await client.request(click).outcome == .recorded)
            let booking = try await client.request(Make.commission("n1", subID: CommissionTests.detail, .confirmed, cents: 300, bookedAt: day))
            #expect(booking.matched && booking.dealID == "d2")

            // Searches: user_search 2/1, background_sweep 1/1; alerts: sent 1, opened 1.
            let searches = try await client.request(reportRequest(.searches, "2026-09-20", "2026-09-20"))
            #expect(lines(searches) == [Line("background_sweep", 1, 1, 10_000), Line("user_search", 2, 1, 5000), Line("", 3, 2, 6667)])
            #expect(lines(try await client.request(reportRequest(.alerts, "2026-09-20", "2026-09-20"))) == [Line("sent", 1, 1, 10_000), Line("", 1, 1, 10_000)])
            #expect(lines(try await client.request(reportRequest(.bookingConversion, "2026-09-20", "2026-09-20"))) == [Line("detail", 1, 1, 10_000), Line("", 1, 1, 10_000)])

            // The route's track record, asked from the other node: the one sent alert, too few for a claim.
            var track = RouteTrackRecordRequest()
            (track.origin, track.destination) = ("LON", "BCN")
            let record = try await client.request(track)
            #expect(record.windows.map(\.alertsSent) == [1, 1, 1] && record.windows.allSatisfy { !$0.enoughAlerts })
            #expect(record.windows.map(\.confirmedByRecheck) == [1, 1, 1] && record.windows.map(\.simulatedAlerts) == [1, 1, 1])

            // A click-out naming its fare: analytics asks search on the other node, which finds it dearer now.
            #expect(try await client.request(ClickRecheckTests.click("k2", to: "MAD")).outcome == .recorded)
            (track.origin, track.destination) = ("LON", "MAD")
            try await waitUntil("the clicked fare was re-checked") { (try? await client.request(track))?.windows.first?.clicksFareRisen == 1 }
            #expect(try await client.request(track).windows.map(\.clicks) == [1, 1, 1])

            do throws(BusError) {
                _ = try await client.request(reportRequest(.searches, "2026-09-21", "2026-09-20"))
                Issue.record("to before from was accepted")
            } catch {
                #expect(error.kind == .remote && error.remoteCode == "invalid-field" && error.message.contains("to_date"))
            }

            // An opt-out of a user subscription does not know, then of one it knows.
            do throws(BusError) {
                _ = try await client.request(optOut("u-anna", true))
                Issue.record("an opt-out of an unknown user was accepted")
            } catch {
                #expect(error.kind == .remote && error.remoteCode == "unknown-user" && error.message == "no user 'u-anna'")
            }
            #expect(try await client.request(optOut("u-ana", true)).optedOut)
            #expect(try await client.request(optOut("u-ana", false)).optedOut == false)

            // Account deletion from the subscription service's node.
            #expect(try fixture.count("client_event") == 3 && fixture.count("service_event") == 6 && fixture.count("click_recheck") == 1)
            try await client.publish(Make.deleted("u-ana", at: day))
            try await waitUntil("the deletion was applied") { (try? fixture.count("client_event")) == 0 }
            #expect(try fixture.count("service_event") == 1, "only the sweep's search, about no user")
            #expect(try fixture.count("trial_user") == 0 && fixture.count("click_recheck") == 0)
        }
    }
}
