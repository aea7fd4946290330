import FareLensBus
import FareLensMessages
import Foundation
import Testing
@testable import AnalyticsService

/// A route's track record (issue #59): alerts sent and the alerts the
/// stale-price re-check stopped, over 7, 30 and 90 days.
@Suite("Track record: alerts sent and phantom fares stopped, per route")
struct TrackRecordTests {
    func decided(_ id: String, _ origin: String, _ destination: String, _ decision: AlertDecision, daysAgo: Int, simulated: Bool = false) -> AlertDecided {
        var event = Make.decided(id, "u-ana", decision, at: Int64(AnalyticsFixture.start.timeIntervalSince1970 * 1000) - Int64(daysAgo) * 86_400_000)
        event.alert.origin = origin
        event.alert.destination = destination
        event.alert.simulated = simulated
        return event
    }

    func delivered(_ id: String, _ recheck: RecheckOutcome, device: String = "") -> AlertDelivered {
        var event = AlertDelivered()
        event.alertID = id
        event.userID = "u-ana"
        event.channel = device.isEmpty ? .webhook : .push
        event.deviceToken = device
        event.attempts = 1
        event.deliveredAtUnixMs = Int64(AnalyticsFixture.start.timeIntervalSince1970 * 1000)
        event.recheck = recheck
        return event
    }

    func request(_ origin: String, _ destination: String) -> RouteTrackRecordRequest {
        var request = RouteTrackRecordRequest()
        request.origin = origin
        request.destination = destination
        return request
    }

    @Test("counts a route's alerts by their latest decision over 7, 30 and 90 days; a sent alert the re-check stopped moves to 'stopped'; the summary states the counts and no more")
    func countsByWindow() async throws {
        let fixture = try AnalyticsFixture()
        var events: [any BusEvent] = []
        events += (1 ... 25).map { decided("a-\($0)", "LON", "BCN", .sent, daysAgo: 3) }
        events += (1 ... 5).map { decided("b-\($0)", "LON", "BCN", .sent, daysAgo: 20, simulated: true) }
        events += (1 ... 4).map { decided("c-\($0)", "LON", "BCN", .sent, daysAgo: 100) }
        events += (1 ... 2).map { decided("d-\($0)", "LIS", "NYC", .sent, daysAgo: 1, simulated: true) }
        events += (1 ... 6).map { decided("e-\($0)", "LON", "BCN", .held, daysAgo: 2) }
        events.append(decided("digest-1", "", "", .sent, daysAgo: 1))
        // Re-checked just before sending: three of the first 25 had risen.
        events += (1 ... 3).map { decided("a-\($0)", "LON", "BCN", .stalePrice, daysAgo: 3) }
        // Of the 22 sent this week, the re-check confirmed 15 (a-4 reached two phones: it
        // counts once) and could not say for 5; 2 have no delivery yet.
        events += (4 ... 18).map { delivered("a-\($0)", .confirmed) }
        events.append(delivered("a-4", .confirmed, device: String(repeating: "ab", count: 32)))
        events += (19 ... 23).map { delivered("a-\($0)", .unconfirmed) }
        await fixture.publish(events)

        let route = try await fixture.service.trackRecord(request("lon", "bcn"))
        #expect(route.origin == "LON" && route.destination == "BCN" && route.windows.map(\.days) == [7, 30, 90])
        let (week, month, quarter) = (route.windows[0], route.windows[1], route.windows[2])
        #expect(week.alertsSent == 22 && week.confirmedByRecheck == 15 && week.stoppedByRecheck == 3 && week.enoughAlerts && abs(week.phantomShareStopped - 0.12) < 1e-9)
        #expect(week.summary == "In the last 7 days we sent 22 alerts on LON→BCN and the re-check of the fare just before sending stopped 3 more whose fare had risen: 12% of the alerts we were about to send would have been phantom fares. "
            + "15 of the 22 sent (68%) went out after the re-check found the fare at the alerted price or lower; it could not confirm the others (search could not say, or they were not delivered yet).")
        #expect(month.alertsSent == 27 && month.stoppedByRecheck == 3 && month.summary.contains("10%"))
        // Simulated fares are labelled: 5 of the month's 30, none of the week's.
        #expect(week.simulatedAlerts == 0 && !week.summary.contains("imulated"))
        #expect(month.simulatedAlerts == 5 && month.summary.hasSuffix(" Simulated: 5 of these 30 alerts were on the simulated market's fares, not real ones."), "\(month.summary)")
        #expect(quarter.alertsSent == 27 && quarter.stoppedByRecheck == 3, "the alerts of 100 days ago are outside every window")

        // A route whose re-check stopped nothing says so plainly; one delivery was heard before its decision.
        await fixture.publish([delivered("f-1", .confirmed)])
        await fixture.publish((1 ... 20).map { decided("f-\($0)", "MAD", "PAR", .sent, daysAgo: 1) } + (2 ... 20).map { delivered("f-\($0)", .confirmed) })
        let madrid = try await fixture.service.trackRecord(request("MAD", "PAR")).windows[0]
        #expect(madrid.confirmedByRecheck == 20)
        #expect(madrid.summary
            == "In the last 7 days we sent 20 alerts on MAD→PAR and the re-check of the fare just before sending stopped none: it found no fare that had risen. "
            + "Every one sent went out after the re-check found its fare at the alerted price or lower.")

        let thin = try await fixture.service.trackRecord(request("LIS", "NYC"))
        #expect(thin.windows.allSatisfy { !$0.enoughAlerts && $0.alertsSent == 2 })
        #expect(thin.windows[0].summary == "Not enough alerts yet on LIS→NYC in the last 7 days to show a track record (2 of the 20 it needs). "
            + "Simulated: every one of these alerts was on the simulated market's fares, not real ones.")

        // Every route: LON→BCN, MAD→PAR and LIS→NYC, not the digest (no route).
        let all = try await fixture.service.trackRecord(request("", ""))
        #expect(all.windows[0].alertsSent == 44 && all.windows[0].confirmedByRecheck == 35 && all.windows[0].stoppedByRecheck == 3 && all.windows[0].summary.hasPrefix("In the last 7 days we sent 44 alerts and"))

        // A week on, the first 25 fall out of the 7-day window.
        fixture.clock.advance(by: 7 * 86_400)
        let later = try await fixture.service.trackRecord(request("LON", "BCN"))
        #expect(later.windows[0].alertsSent == 0 && later.windows[1].alertsSent == 27)
    }

    @Test("one code without the other, or a code that is not three letters, is invalid-field naming it")
    func badCodes() async throws {
        let fixture = try AnalyticsFixture()
        for (bad, field) in [(request("LON", ""), "destination"), (request("", "BCN"), "origin"), (request("LONDON", "BCN"), "origin"), (request("LON", "B1N"), "destination")] {
            do {
                _ = try await fixture.service.trackRecord(bad)
                Issue.record("\(bad) was answered")
            } catch {
                #expect(error.code == "invalid-field" && error.field == field, "\(bad): \(error)")
            }
        }
    }
}
