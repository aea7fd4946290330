import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

@Suite("Commission reconciliation")
struct CommissionTests {
    static let dealcard = "ios-fl-d1-none-dealcard-a-free"
    static let detail = "ios-fl-d2-w7-detail-b-pro"
    static let alert = "ios-fl-d3-w8-alert-none-trial"
    static let sheetNeverClicked = "ios-fl-d9-none-sheet-a-pro"

    @Test("bookings reconcile by sub-id: matched, duplicate, a status update to CANCELLED that no longer counts, an unmatched and an unparsable sub-id")
    func conversions() async throws {
        let fixture = try AnalyticsFixture()
        let clicks: [(String, BookingPlacement, String, Int64)] = [
            ("k1", .dealcard, Self.dealcard, ms("2026-09-20")), ("k2", .detail, Self.detail, ms("2026-09-20")),
            ("k3", .detail, Self.detail, ms("2026-09-20")), ("k4", .alert, Self.alert, ms("2026-09-21")),
        ]
        for (id, placement, subID, at) in clicks {
            _ = try await fixture.service.record(Make.client(id, "u-ana", .affiliateClicked, at: at, placement: placement, subID: subID))
        }
        let n1 = try await fixture.service.reconcile(Make.commission("n1", subID: Self.dealcard, .pending, cents: 500, bookedAt: ms("2026-09-20")))
        #expect(n1.matched && !n1.duplicate && n1.dealID == "d1" && n1.placement == .dealcard)
        let again = try await fixture.service.reconcile(Make.commission("n1", subID: Self.dealcard, .pending, cents: 500, bookedAt: ms("2026-09-20")))
        #expect(again.matched && again.duplicate)
        let n2 = try await fixture.service.reconcile(Make.commission("n2", subID: Self.detail, .confirmed, cents: 1200, bookedAt: ms("2026-09-21")))
        #expect(n2.matched && !n2.duplicate && n2.dealID == "d2" && n2.placement == .detail)
        _ = try await fixture.service.reconcile(Make.commission("n3", subID: Self.detail, .pending, cents: 800, bookedAt: ms("2026-09-21")))
        let cancelled = try await fixture.service.reconcile(Make.commission("n3", subID: Self.detail, .cancelled, cents: 800, bookedAt: ms("2026-09-21")))
        #expect(cancelled.matched && !cancelled.duplicate)
        let unmatched = try await fixture.service.reconcile(Make.commission("n4", subID: Self.sheetNeverClicked, .confirmed, cents: 900, bookedAt: ms("2026-09-21")))
        #expect(!unmatched.matched && unmatched.dealID == "d9" && unmatched.placement == .sheet)
        let garbage = try await fixture.service.reconcile(Make.commission("n5", subID: "ios-fl-d1-dealcard", .confirmed, cents: 700, bookedAt: ms("2026-09-21")))
        #expect(!garbage.matched && garbage.dealID.isEmpty && garbage.placement == .unspecified)

        let report = try await fixture.report(.bookingConversion, "2026-09-20", "2026-09-21")
        #expect(report.countLabel == "affiliate clicks" && report.hitsLabel == "bookings")
        // alert: 1 click, 0 bookings; dealcard: 1 click, n1 ($5.00); detail: 2 clicks, n2 ($12.00; n3 cancelled); total 4 clicks, 2 bookings, $17.00.
        #expect(lines(report) == [Line("alert", 1, 0, 0), Line("dealcard", 1, 1, 10_000), Line("detail", 2, 1, 5000), Line("", 4, 2, 5000)])
        #expect(report.rows.map { $0.hasAmount ? $0.amount.minorUnits : -1 } == [-1, 500, 1200, 1700])
        #expect(report.rows.last?.amount.currency == "USD")
        // Per day: the booking counts on its booking day (n2 on the 21st, its clicks on the 20th).
        #expect(lines(try await fixture.report(.bookingConversion, "2026-09-20", "2026-09-21", daily: true)) == [
            Line("dealcard", 1, 1, 10_000, day: "2026-09-20"), Line("detail", 2, 0, 0, day: "2026-09-20"),
            Line("alert", 1, 0, 0, day: "2026-09-21"), Line("detail", 0, 1, 0, day: "2026-09-21"), Line("", 4, 2, 5000),
        ])

        // Confirming the cancelled booking again brings it back.
        _ = try await fixture.service.reconcile(Make.commission("n3", subID: Self.detail, .confirmed, cents: 800, bookedAt: ms("2026-09-21")))
        #expect(lines(try await fixture.report(.bookingConversion, "2026-09-21", "2026-09-21")).last == Line("", 1, 2, 20_000))
    }

    @Test("a booking that arrived before any click with its sub-id counts from that click on, on its booking day")
    func lateClick() async throws {
        let fixture = try AnalyticsFixture()
        let early = try await fixture.service.reconcile(Make.commission("n4", subID: Self.sheetNeverClicked, .confirmed, cents: 900, bookedAt: ms("2026-09-21")))
        #expect(!early.matched)
        #expect(lines(try await fixture.report(.bookingConversion, "2026-09-21", "2026-09-22")) == [Line("", 0, 0, 0)])
        _ = try await fixture.service.record(Make.client("k9", "u-ana", .affiliateClicked, at: ms("2026-09-22"), placement: .sheet, subID: Self.sheetNeverClicked))
        #expect(lines(try await fixture.report(.bookingConversion, "2026-09-21", "2026-09-22")) == [Line("sheet", 1, 1, 10_000), Line("", 1, 1, 10_000)])
        let repeated = try await fixture.service.reconcile(Make.commission("n4", subID: Self.sheetNeverClicked, .confirmed, cents: 900, bookedAt: ms("2026-09-21")))
        #expect(repeated.matched && repeated.duplicate)
    }

    /// What search's BookingOptionsBuilder writes for scoring's deal
    /// `d-9f2c4a01b7e3d856` on watchlist `w-00c0ffee1234abcd` (the same text
    /// `BookingOptionsTests.scoredDealSubID` expects): each `-` inside an id
    /// is written `__`.
    static let scoredDeal = "ios-fl-d__9f2c4a01b7e3d856-w__00c0ffee1234abcd-detail-variantA-pro"

    @Test("a commission for a real scored deal (id 'd-…') matches the click that carried search's sub-id, and reports the deal id as scoring wrote it")
    func scoredDealMatches() async throws {
        let fixture = try AnalyticsFixture()
        let built = try AttributionSubID(dealID: "d-9f2c4a01b7e3d856", watchlistID: "w-00c0ffee1234abcd", placement: .detail, abVariant: "variantA", tier: .pro)
        #expect(built.text == Self.scoredDeal)
        _ = try await fixture.service.record(Make.client("k1", "u-ana", .affiliateClicked, at: ms("2026-09-20"), placement: .detail, subID: Self.scoredDeal))
        let booked = try await fixture.service.reconcile(Make.commission("n1", subID: Self.scoredDeal, .confirmed, cents: 1500, bookedAt: ms("2026-09-21")))
        #expect(booked.matched && !booked.duplicate)
        #expect(booked.dealID == "d-9f2c4a01b7e3d856" && booked.placement == .detail)
        #expect(lines(try await fixture.report(.bookingConversion, "2026-09-20", "2026-09-21")) == [Line("detail", 1, 1, 10_000), Line("", 1, 1, 10_000)])
        // The deal id as scoring wrote it (with its dash, unencoded) is not the sub-id: no match.
        let raw = try await fixture.service.reconcile(Make.commission("n2", subID: "ios-fl-d-9f2c4a01b7e3d856-none-detail-variantA-pro", .confirmed, cents: 1500, bookedAt: ms("2026-09-21")))
        #expect(!raw.matched && raw.dealID.isEmpty && raw.placement == .unspecified)
    }

    @Test("sub-ids parse as search writes them, and nothing else does")
    func subIDs() {
        let parsed = AttributionSubID(parsing: "ios-fl-d_1-w_7-detail-variantA-pro")
        #expect(parsed?.dealID == "d_1" && parsed?.watchlistID == "w_7" && parsed?.placement == .detail && parsed?.abVariant == "variantA" && parsed?.tier == .pro)
        let none = AttributionSubID(parsing: "ios-fl-none-none-widget-none-free")
        #expect(none?.dealID == "" && none?.watchlistID == "" && none?.abVariant == "")
        #expect(AttributionSubID(parsing: Self.scoredDeal)?.dealID == "d-9f2c4a01b7e3d856")
        for bad in ["", "ios-fl", "ios-fl-d1-none-banner-a-pro", "ios-fl-d1-none-detail-a-gold", "web-fl-d1-none-detail-a-pro",
                    "ios-fl-d-1-none-detail-a-pro", "ios-fl-d1-none-detail-a-pro-x", "ios-fl--none-detail-a-pro", "ios-fl-d 1-none-detail-a-pro",
                    "ios-fl-d___1-none-detail-a-pro", "ios-fl-d1-none-DETAIL-a-pro"] {
            #expect(AttributionSubID(parsing: bad) == nil, "\(bad)")
        }
    }
}
