@testable import AlertsService
import FareLensMessages
import Foundation
import Testing

/// The payload writer against Foundation's JSONEncoder, which it replaces on the hot path.
@Suite struct AlertPayloadTests {
    static func row(title: String, digest: Bool = false, deal: Bool = true) -> AlertRow {
        AlertRow(
            alertID: "a018f3c2a9b1c3f4e5d6", userID: "u-1", kind: (digest ? AlertKind.dailyDigest : .exceptionalDeal).rawValue,
            decision: AlertDecision.sent.rawValue, reason: "Sent", origin: digest ? "" : "JFK", destination: digest ? "" : "NRT",
            dealID: deal && !digest ? "d-1/2" : "", watchlistID: deal ? "" : "w-1", currency: digest ? "" : "JPY", priceMinorUnits: digest ? 0 : 65_000,
            dealScore: deal && !digest ? 92 : 0, queueScore: 120, title: title, body: "Save 35% vs average.\nExpires in 6 hours.",
            actions: "1,2,3", decidedAtUnixMs: 1_790_000_000_123, localDay: "2026-09-21", quietException: false,
            deliveryState: DeliveryState.pending.rawValue, deliveryError: "", attempts: 0, deliveredAtUnixMs: 0, digestDueAtUnixMs: 0,
            digestAlertID: "", departureDate: digest ? "" : "2026-10-01", returnDate: deal ? "" : "2026-10-08", cabin: 1, tier: 2, simulated: !deal)
    }

    @Test("the hand-written body is byte for byte what JSONEncoder (sorted keys, snake_case) writes, for deals, watchlist alerts (with and without a track record) and digests, with quotes, backslashes, control characters, slashes and non-ASCII text")
    func sameBytesAsEncoder() throws {
        let titles = ["Tokyo deal dropped to ¥65,000", "He said \"go\" \\ now", "tab\there\u{01}\u{1F}", "São Paulo / Zürich 🛫", "", "\"quoted\"", "\"\\\n\r\u{0C}\u{08}"]
        for title in titles {
            for (digest, deal) in [(false, true), (false, false), (true, false)] {
                var payload = AlertPayload(Self.row(title: title, digest: digest, deal: deal), carried: digest ? ["a1", "a2"] : nil)
                for trackRecord in digest ? [nil] : [nil, "In the last 30 days we sent 25 alerts on JFK→NRT: \(title)"] {
                    payload.data.trackRecord = trackRecord
                    let mine = try payload.json()
                    let reference = try payload.encoderJSON()
                    #expect(mine == reference, "\(String(decoding: mine, as: UTF8.self))\n\(String(decoding: reference, as: UTF8.self))")
                }
            }
        }
    }

    @Test("RFC 3339 timestamps to the second in UTC, including before 1970 and on leap days")
    func timestamps() {
        #expect(JSONText.rfc3339(Date(timeIntervalSince1970: 1_790_000_000.9)) == "2026-09-21T14:13:20Z")
        #expect(JSONText.rfc3339(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(JSONText.rfc3339(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(JSONText.rfc3339(Date(timeIntervalSince1970: 1_709_164_800)) == "2024-02-29T00:00:00Z")
        for seconds in stride(from: 0.0, to: 2_000_000_000, by: 7_777_777) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(JSONText.rfc3339(date) == date.formatted(.iso8601))
        }
    }

    @Test("the payload names the row's actions: the usual three, others in their order, and a number that names no action as unknown")
    func actionNames() {
        #expect(AlertPayload.actionNames("1,2,3") == ["view", "mute_route", "pause"])
        #expect(AlertPayload.actionNames("1,3") == ["view", "pause"])
        #expect(AlertPayload.actionNames("3,1") == ["pause", "view"])
        #expect(AlertPayload.actionNames("1,99") == ["view", "unknown"])
        #expect(AlertPayload.actionNames("") == [])
        var row = Self.row(title: "t")
        row.actions = "1"
        #expect(AlertPayload(row).data.actions == ["view"])
    }
}
