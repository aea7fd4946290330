import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

@Suite("Validation")
struct ValidationTests {
    /// Runs `body` and returns the field of the `invalid-field` error it threw (nil, with an issue, otherwise).
    static func invalidField(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            Issue.record("accepted")
            return nil
        } catch let error as AnalyticsError {
            #expect(error.code == "invalid-field")
            return error.field
        } catch {
            Issue.record("threw \(error)")
            return nil
        }
    }

    @Test("client events name the field at fault")
    func clientEvents() async throws {
        let fixture = try AnalyticsFixture()
        let now = fixture.clock.now().unixMilliseconds
        let cases: [(RecordClientEventRequest, String)] = [
            (Make.client("", "u-ana", .appOpened), "client_event_id"),
            (Make.client("c1", "", .appOpened), "user_id"),
            (Make.client("c1", "u-ana", .unspecified), "kind"),
            (Make.client("c1", "u-ana", .init(rawValue: 99)!), "kind"),
            (Make.client("c1", "u-ana", .dealViewed), "placement"),
            (Make.client("c1", "u-ana", .affiliateClicked, placement: .init(rawValue: 42)!), "placement"),
            (Make.client("c1", "u-ana", .alertOpened), "alert_id"),
            (Make.client("c1", "u-ana", .appOpened, at: now + 86_400_000 + 1), "occurred_at_unix_ms"),
            (Make.client("c1", "u-ana", .appOpened, at: -1), "occurred_at_unix_ms"),
        ]
        for (request, field) in cases {
            #expect(await Self.invalidField { _ = try await fixture.service.record(request) } == field, "\(request)")
        }
        var big = Make.client("c1", "u-ana", .appOpened)
        big.properties = Dictionary(uniqueKeysWithValues: (0 ..< 21).map { ("k\($0)", "v") })
        #expect(await Self.invalidField { _ = try await fixture.service.record(big) } == "properties")
        #expect(try fixture.count("client_event") == 0)
    }

    @Test("opt-out and delete need a user id")
    func privacy() async throws {
        let fixture = try AnalyticsFixture()
        #expect(await Self.invalidField { _ = try await fixture.service.setOptOut(optOut(" ", true)) } == "user_id")
        #expect(await Self.invalidField { _ = try await fixture.service.deleteUserData(deleteRequest("")) } == "user_id")
    }

    @Test("reports name the kind or date at fault: no kind, an unknown kind, a day that does not exist, to before from, more than 3660 days")
    func reports() async throws {
        let fixture = try AnalyticsFixture()
        var unknown = reportRequest(.searches, "2026-09-01", "2026-09-02")
        unknown.kind = ReportKind(rawValue: 77)!
        var badFrom = reportRequest(.searches, "2026-09-01", "2026-09-02")
        badFrom.fromDate.month = 13
        var badTo = reportRequest(.searches, "2026-09-01", "2026-09-02")
        badTo.toDate.day = 31
        badTo.toDate.month = 2
        let cases: [(AnalyticsReportRequest, String)] = [
            (reportRequest(.unspecified, "2026-09-01", "2026-09-02"), "kind"),
            (unknown, "kind"),
            (badFrom, "from_date"),
            (badTo, "to_date"),
            (reportRequest(.alerts, "2026-09-02", "2026-09-01"), "to_date"),
            (reportRequest(.alerts, "2016-01-01", "2026-01-11"), "to_date"),
        ]
        for (request, field) in cases {
            #expect(await Self.invalidField { _ = try await fixture.service.report(request) } == field, "\(request)")
        }
    }

    @Test("a report with no dates covers the 30 days to today on the service's clock; one day is a valid range")
    func defaultRange() async throws {
        let fixture = try AnalyticsFixture()
        await fixture.publish([
            Make.search("", .backgroundSweep, cacheHit: false, at: ms("2026-08-22")),  // today − 30: outside
            Make.search("", .backgroundSweep, cacheHit: false, at: ms("2026-08-23")),  // today − 29
            Make.search("", .backgroundSweep, cacheHit: true, at: fixture.clock.now().unixMilliseconds),
        ])
        var request = AnalyticsReportRequest()
        request.kind = .searches
        #expect(lines(try await fixture.service.report(request)) == [Line("background_sweep", 2, 1, 5000), Line("", 2, 1, 5000)])
        #expect(lines(try await fixture.report(.searches, "2026-08-23", "2026-08-23")) == [Line("background_sweep", 1, 0, 0), Line("", 1, 0, 0)])
    }

    @Test("commission notifications name the field at fault; a bad sub-id is not an error")
    func commissions() async throws {
        let fixture = try AnalyticsFixture()
        var noStatus = Make.commission("n1", subID: "x", .confirmed, cents: 1, bookedAt: 0)
        noStatus.status = .unspecified
        var badMoney = Make.commission("n1", subID: "x", .confirmed, cents: 1, bookedAt: 0)
        badMoney.commission.currency = "usd"
        var negative = Make.commission("n1", subID: "x", .confirmed, cents: 1, bookedAt: 0)
        negative.bookingValue.minorUnits = -5
        let cases: [(CommissionNotificationRequest, String)] = [
            (Make.commission("", subID: "x", .confirmed, cents: 1, bookedAt: 0), "notification_id"),
            (noStatus, "status"),
            (badMoney, "commission"),
            (negative, "booking_value"),
            (Make.commission("n1", subID: "x", .confirmed, cents: 1, bookedAt: -1), "booked_at_unix_ms"),
        ]
        for (request, field) in cases {
            #expect(await Self.invalidField { _ = try await fixture.service.reconcile(request) } == field, "\(request)")
        }
        #expect(try await !fixture.service.reconcile(Make.commission("n1", subID: "not a sub-id", .confirmed, cents: 1, bookedAt: 0)).matched)
    }
}
