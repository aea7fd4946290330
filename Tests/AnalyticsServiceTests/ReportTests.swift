import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

/// Each report against a count made by hand from the scripted events (the
/// expected rows are written out, never computed by the code under test).
@Suite("Reports")
struct ReportTests {
    @Test("searches and cache-hit rate by purpose, per range and per day")
    func searches() async throws {
        let fixture = try AnalyticsFixture()
        await fixture.publish([
            Make.search("u-ana", .userSearch, cacheHit: true, at: ms("2026-09-20")),
            Make.search("u-ana", .userSearch, cacheHit: false, at: ms("2026-09-20")),
            Make.search("u-ben", .userSearch, cacheHit: true, at: ms("2026-09-20")),
            Make.search("", .backgroundSweep, cacheHit: false, at: ms("2026-09-20")),
            Make.search("u-ben", .userSearch, cacheHit: false, at: ms("2026-09-21")),
            Make.search("u-ana", .proWatchlist, cacheHit: true, at: ms("2026-09-21")),
            Make.search("", .backgroundSweep, cacheHit: false, at: ms("2026-09-21")),
            Make.search("", .backgroundSweep, cacheHit: true, at: ms("2026-09-21", hour: 23)),
            Make.search("", .backgroundSweep, cacheHit: true, at: ms("2026-09-22", hour: 0)),  // outside the range
        ])
        let report = try await fixture.report(.searches, "2026-09-20", "2026-09-21")
        #expect(report.countLabel == "searches" && report.hitsLabel == "cache hits")
        // background_sweep 3 searches, 1 hit (33.33%); pro_watchlist 1/1; user_search 4/2; total 8/4.
        #expect(lines(report) == [Line("background_sweep", 3, 1, 3333), Line("pro_watchlist", 1, 1, 10_000), Line("user_search", 4, 2, 5000), Line("", 8, 4, 5000)])
        let daily = try await fixture.report(.searches, "2026-09-20", "2026-09-21", daily: true)
        #expect(lines(daily) == [
            Line("background_sweep", 1, 0, 0, day: "2026-09-20"), Line("user_search", 3, 2, 6667, day: "2026-09-20"),
            Line("background_sweep", 2, 1, 5000, day: "2026-09-21"), Line("pro_watchlist", 1, 1, 10_000, day: "2026-09-21"),
            Line("user_search", 1, 0, 0, day: "2026-09-21"), Line("", 8, 4, 5000),
        ])
    }

    @Test("provider quota use: calls, successful calls and the latest limit (a QuotaWarning's too); the total's limit is their sum")
    func quota() async throws {
        let fixture = try AnalyticsFixture()
        var warning = QuotaWarning()
        warning.provider = "amadeus"
        warning.used = 2000
        warning.limit = 2500
        warning.thresholdPercent = 80
        warning.atUnixMs = ms("2026-09-21", hour: 18)
        await fixture.publish([
            Make.call("amadeus", success: true, used: 1, limit: 2000, at: ms("2026-09-20")),
            Make.call("amadeus", success: false, used: 2, limit: 2000, at: ms("2026-09-20")),
            Make.call("travelpayouts", success: true, used: 1, limit: 5000, at: ms("2026-09-20")),
            Make.call("amadeus", success: true, used: 3, limit: 2000, at: ms("2026-09-21")),
            warning,
        ])
        let report = try await fixture.report(.quotaUse, "2026-09-20", "2026-09-21")
        // amadeus 3 calls, 2 ok (66.67%), limit 2500 (the latest); travelpayouts 1/1, 5000; total 4/3, 7500.
        #expect(lines(report) == [Line("amadeus", 3, 2, 6667), Line("travelpayouts", 1, 1, 10_000), Line("", 4, 3, 7500)])
        #expect(report.rows.map(\.limit) == [2500, 5000, 7500])
        let daily = try await fixture.report(.quotaUse, "2026-09-20", "2026-09-21", daily: true)
        #expect(daily.rows.map(\.limit) == [2000, 5000, 2500, 7500])
    }

    @Test("alerts by decision, each counted once, with opens matched by alert id (an open before its decision, a repeated open, an open of an unknown alert)")
    func alerts() async throws {
        let fixture = try AnalyticsFixture()
        _ = try await fixture.service.record(Make.client("o7", "u-ben", .alertOpened, at: ms("2026-09-21", hour: 10), alert: "a7"))
        await fixture.publish([
            Make.decided("a1", "u-ana", .sent, at: ms("2026-09-20")),
            Make.decided("a2", "u-ana", .sent, at: ms("2026-09-20")),
            Make.decided("a3", "u-ben", .held, at: ms("2026-09-20")),
            Make.decided("a4", "u-ben", .deduped, at: ms("2026-09-21")),
            Make.decided("a5", "u-ana", .stalePrice, at: ms("2026-09-21")),
            Make.decided("a6", "u-ana", .notAlertable, at: ms("2026-09-21")),
            Make.decided("a7", "u-ben", .sent, at: ms("2026-09-21")),
            Make.decided("a1", "u-ana", .sent, at: ms("2026-09-20")),  // heard twice: counted once
        ])
        _ = try await fixture.service.record(Make.client("o1", "u-ana", .alertOpened, at: ms("2026-09-22"), alert: "a1"))
        _ = try await fixture.service.record(Make.client("o1b", "u-ana", .alertOpened, at: ms("2026-09-22"), alert: "a1"))
        _ = try await fixture.service.record(Make.client("o9", "u-ana", .alertOpened, at: ms("2026-09-22"), alert: "a9"))
        let report = try await fixture.report(.alerts, "2026-09-20", "2026-09-21")
        // 7 alerts: sent a1 a2 a7 (a1 and a7 opened: 2/3), held a3, deduped a4, stale a5, not alertable a6; 2 of 7 opened = 28.57%.
        #expect(lines(report) == [
            Line("deduped", 1, 0, 0), Line("held", 1, 0, 0), Line("not_alertable", 1, 0, 0), Line("sent", 3, 2, 6667), Line("stale_price", 1, 0, 0),
            Line("", 7, 2, 2857),
        ])
        #expect(report.hitsLabel == "opened")
    }

    @Test("a sent alert found stale just before delivery moves from sent to stale_price, in its decision's day, once; an opened one takes its open along")
    func decisionChanges() async throws {
        let fixture = try AnalyticsFixture()
        await fixture.publish([
            Make.decided("a1", "u-ana", .sent, at: ms("2026-09-20")),
            Make.decided("a2", "u-ana", .sent, at: ms("2026-09-20")),
        ])
        _ = try await fixture.service.record(Make.client("o2", "u-ana", .alertOpened, at: ms("2026-09-20", hour: 12), alert: "a2"))
        await fixture.publish([
            Make.decided("a1", "u-ana", .stalePrice, at: ms("2026-09-21")),  // alerts publishes the changed record again
            Make.decided("a2", "u-ana", .stalePrice, at: ms("2026-09-21")),
            Make.decided("a1", "u-ana", .stalePrice, at: ms("2026-09-21")),  // heard twice: moved once
        ])
        #expect(lines(try await fixture.report(.alerts, "2026-09-20", "2026-09-20")) == [Line("stale_price", 2, 1, 5000), Line("", 2, 1, 5000)])
        #expect(lines(try await fixture.report(.alerts, "2026-09-21", "2026-09-21")).allSatisfy { $0.count == 0 }, "counted in the decision's day, not the change's")
    }

    @Test("click-through by placement: deals viewed against affiliate clicks")
    func clickThrough() async throws {
        let fixture = try AnalyticsFixture()
        let day1 = ms("2026-09-20"), day2 = ms("2026-09-21")
        let events: [(ClientEventKind, BookingPlacement, Int64)] = [
            (.dealViewed, .dealcard, day1), (.dealViewed, .dealcard, day1), (.dealViewed, .dealcard, day1), (.affiliateClicked, .dealcard, day1),
            (.dealViewed, .detail, day1), (.dealViewed, .detail, day1), (.affiliateClicked, .detail, day1), (.affiliateClicked, .detail, day1),
            (.dealViewed, .widget, day2), (.affiliateClicked, .alert, day2), (.appOpened, .unspecified, day2),
        ]
        for (index, (kind, placement, at)) in events.enumerated() {
            #expect(try await fixture.service.record(Make.client("e\(index)", "u-ana", kind, at: at, placement: placement)).outcome == .recorded)
        }
        // alert 0 views/1 click; dealcard 3/1 (33.33%); detail 2/2; widget 1/0; total 6/4 (66.67%).
        #expect(lines(try await fixture.report(.clickThrough, "2026-09-20", "2026-09-21")) == [
            Line("alert", 0, 1, 0), Line("dealcard", 3, 1, 3333), Line("detail", 2, 2, 10_000), Line("widget", 1, 0, 0), Line("", 6, 4, 6667),
        ])
    }

    @Test("trial to paid by trial start week: a conversion counts once, a second trial start is ignored, Pro without a trial is not a conversion")
    func trials() async throws {
        let fixture = try AnalyticsFixture()
        await fixture.publish([
            Make.tier("u-1", .unspecified, .trial, at: ms("2026-09-21")),  // Monday of 2026-W39
            Make.tier("u-2", .unspecified, .trial, at: ms("2026-09-22")),
            Make.tier("u-3", .unspecified, .trial, at: ms("2026-09-28")),  // 2026-W40
            Make.tier("u-4", .unspecified, .trial, at: ms("2026-09-28")),
            Make.tier("u-3", .trial, .pro, at: ms("2026-09-29")),
            Make.tier("u-4", .trial, .trial, at: ms("2026-09-30")),  // an operator's new trial
            Make.tier("u-1", .trial, .pro, at: ms("2026-10-01")),
            Make.tier("u-2", .trial, .free, at: ms("2026-10-05")),
            Make.tier("u-3", .pro, .pro, at: ms("2026-10-29")),  // a renewal
            Make.tier("u-5", .free, .pro, at: ms("2026-09-23")),
        ])
        let report = try await fixture.report(.trialConversion, "2026-09-21", "2026-09-30")
        // W39: u-1 (Pro), u-2 (Free) → 2/1; W40: u-3 (Pro), u-4 → 2/1.
        #expect(lines(report) == [Line("2026-W39", 2, 1, 5000), Line("2026-W40", 2, 1, 5000), Line("", 4, 2, 5000)])
        #expect(lines(try await fixture.report(.trialConversion, "2026-09-21", "2026-09-30", daily: true)) == [
            Line("2026-W39", 1, 1, 10_000, day: "2026-09-21"), Line("2026-W39", 1, 0, 0, day: "2026-09-22"), Line("2026-W40", 2, 1, 5000, day: "2026-09-28"),
            Line("", 4, 2, 5000),
        ])
    }

    @Test("ISO weeks at year ends")
    func isoWeeks() {
        // 2026-01-01 is a Thursday (W01); 2027-01-01 a Friday (still 2026-W53); 2024-12-30 a Monday (2025-W01).
        #expect(Dimensions.isoWeek(day: CalendarDate(iso: "2026-01-01")!.daysSinceEpoch) == "2026-W01")
        #expect(Dimensions.isoWeek(day: CalendarDate(iso: "2027-01-01")!.daysSinceEpoch) == "2026-W53")
        #expect(Dimensions.isoWeek(day: CalendarDate(iso: "2024-12-30")!.daysSinceEpoch) == "2025-W01")
        #expect(Dimensions.isoWeek(day: CalendarDate(iso: "2026-02-23")!.daysSinceEpoch) == "2026-W09")
    }

    @Test("rates are basis points rounded half up, 0 for no count")
    func rates() {
        #expect(ReportBuilder.rate(1, of: 8) == 1250)
        #expect(ReportBuilder.rate(2, of: 3) == 6667)
        #expect(ReportBuilder.rate(1, of: 3) == 3333)
        #expect(ReportBuilder.rate(3, of: 0) == 0)
    }
}
