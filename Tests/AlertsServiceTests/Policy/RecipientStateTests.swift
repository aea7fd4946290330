@testable import AlertsService
import FareLensMessages
import Foundation
import Testing

/// How a user's policy state takes in the sent decisions the database holds
/// (`RecipientState.rememberSent`, which `AlertRow.states` calls per row).
@Suite struct RecipientStateTests {
    static let day = CalendarDate(year: 2026, month: 6, day: 10)!
    static let noon: Int64 = 1_781_107_200_000
    static let since = noon - 12 * 3_600_000

    @Test("a sent row within the window dedupes its route (by metro) and its deal; the latest of a route's rows counts")
    func dedupeKeys() {
        var state = RecipientState(day: Self.day, metros: ["LHR": "LON", "JFK": "NYC"])
        state.rememberSent(origin: "JFK", destination: "LHR", dealID: "d1", at: Self.noon - 60_000, localDay: "2026-06-10", quietException: false, dedupingSince: Self.since)
        state.rememberSent(origin: "JFK", destination: "LHR", dealID: "", at: Self.noon - 120_000, localDay: "2026-06-10", quietException: false, dedupingSince: Self.since)
        #expect(state.lastSent == ["route:NYC→LON": Date(unixMilliseconds: Self.noon - 60_000), "deal:d1": Date(unixMilliseconds: Self.noon - 60_000)])
        #expect(state.sentOnDay == 2)
        #expect(!state.quietExceptionUsed)
    }

    @Test("a row at the window's start dedupes; one a millisecond before it does not, yet counts for its day")
    func windowEdge() {
        var state = RecipientState(day: Self.day)
        state.rememberSent(origin: "JFK", destination: "NRT", dealID: "", at: Self.since, localDay: "2026-06-10", quietException: false, dedupingSince: Self.since)
        state.rememberSent(origin: "JFK", destination: "LAX", dealID: "d2", at: Self.since - 1, localDay: "2026-06-10", quietException: true, dedupingSince: Self.since)
        #expect(state.lastSent == ["route:JFK→NRT": Date(unixMilliseconds: Self.since)])
        #expect(state.sentOnDay == 2)
        #expect(state.quietExceptionUsed)
    }

    @Test("a row of another local day dedupes within the window but counts against neither the cap nor the night's exception")
    func otherDay() {
        var state = RecipientState(day: Self.day)
        state.rememberSent(origin: "JFK", destination: "NRT", dealID: "", at: Self.noon - 3_600_000, localDay: "2026-06-09", quietException: true, dedupingSince: Self.since)
        #expect(state.lastSent["route:JFK→NRT"] == Date(unixMilliseconds: Self.noon - 3_600_000))
        #expect(state.sentOnDay == 0)
        #expect(!state.quietExceptionUsed)
    }
}
