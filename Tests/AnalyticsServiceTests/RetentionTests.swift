import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

@Suite("Retention")
struct RetentionTests {
    @Test("run() purges raw events older than 90 days on the injected clock; every report over those days is unchanged")
    func purgeKeepsReports() async throws {
        let fixture = try AnalyticsFixture()
        let old = ms("2026-06-01"), recent = ms("2026-09-15")
        for (index, at) in [old, old, recent].enumerated() {
            _ = try await fixture.service.record(Make.client("v\(index)", "u-ana", .dealViewed, at: at, placement: .dealcard))
        }
        _ = try await fixture.service.record(Make.client("k1", "u-ana", .affiliateClicked, at: old, placement: .dealcard, subID: CommissionTests.dealcard))
        await fixture.publish([
            Make.search("u-ana", .userSearch, cacheHit: true, at: old),
            Make.call("amadeus", success: true, used: 1, limit: 2000, at: old),
            Make.decided("a1", "u-ana", .sent, at: old),
            Make.tier("u-ana", .unspecified, .trial, at: old),
            Make.search("u-ben", .userSearch, cacheHit: false, at: recent),
        ])
        _ = try await fixture.service.record(Make.client("o1", "u-ana", .alertOpened, at: old, alert: "a1"))
        _ = try await fixture.service.reconcile(Make.commission("n1", subID: CommissionTests.dealcard, .confirmed, cents: 500, bookedAt: old))
        let kinds: [ReportKind] = [.searches, .quotaUse, .alerts, .clickThrough, .bookingConversion, .trialConversion]
        var before: [AnalyticsReportResponse] = []
        for kind in kinds { before.append(try await fixture.report(kind, "2026-05-01", "2026-09-30", daily: true)) }
        #expect(try fixture.count("client_event") == 5 && fixture.count("service_event") == 5)

        // 2026-09-21 + 10 days: 2026-06-01 is 122 days back, 2026-09-15 16.
        fixture.clock.advance(by: 10 * 86_400)
        let running = Task { try await fixture.service.run() }
        defer { running.cancel() }
        try await waitUntil("the first retention pass ran") { (try? fixture.count("service_event")) == 1 }
        #expect(try fixture.count("client_event") == 1 && fixture.count("alert_seen") == 0)
        #expect(try fixture.count("trial_user") == 1, "trial starts outlive raw events")
        for (kind, report) in zip(kinds, before) {
            #expect(try await fixture.report(kind, "2026-05-01", "2026-09-30", daily: true) == report, "\(kind)")
        }
        // And a conversion after the purge still finds the trial.
        await fixture.publish([Make.tier("u-ana", .trial, .pro, at: ms("2026-09-30"))])
        #expect(lines(try await fixture.report(.trialConversion, "2026-06-01", "2026-06-01")) == [Line("2026-W23", 1, 1, 10_000), Line("", 1, 1, 10_000)])
    }

    @Test("a raw event exactly 89 days old stays; one 90 days and a millisecond old goes")
    func boundary() async throws {
        let fixture = try AnalyticsFixture()
        let now = fixture.clock.now().unixMilliseconds
        _ = try await fixture.service.record(Make.client("keep", "u-ana", .appOpened, at: now - 89 * 86_400_000))
        _ = try await fixture.service.record(Make.client("edge", "u-ana", .appOpened, at: now - 90 * 86_400_000))
        _ = try await fixture.service.record(Make.client("gone", "u-ana", .appOpened, at: now - 90 * 86_400_000 - 1))
        #expect(await fixture.service.applyRetention() == 1)
        let left = try await fixture.database.writer.read { db in try String.fetchAll(db, sql: "SELECT clientEventID FROM client_event ORDER BY clientEventID") }
        #expect(left == ["edge", "keep"])
    }
}
