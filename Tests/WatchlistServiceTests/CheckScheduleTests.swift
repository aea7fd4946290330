import Foundation
import Testing
@testable import WatchlistService

/// An instant from an ISO-8601 string with an explicit UTC offset.
private func utc(_ string: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: string))
}

/// A zone by IANA id. (`knownTimeZoneIdentifiers` is stale on Linux — it
/// lacks Asia/Kolkata — so never filter through it.)
private func zone(_ id: String) throws -> TimeZone {
    try #require(TimeZone(identifier: id))
}

/// A Gregorian calendar in `timeZone`, to read wall-clock components back.
private func calendar(in timeZone: TimeZone) -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    return calendar
}

private let pro = CheckSchedule(localMinutes: CheckSchedule.proMinutes, jitterSeconds: 0)
private let free = CheckSchedule(localMinutes: CheckSchedule.freeMinutes, jitterSeconds: 0)

@Suite("Check schedule")
struct CheckScheduleTests {
    @Test("across New York's spring-forward day the Pro slots stay at 09:00 and 18:00 local, moving an hour earlier in UTC")
    func springForward() throws {
        // 2026-03-07 is EST (-5): 09:00 = 14:00Z, 18:00 = 23:00Z.
        // 2026-03-08 02:00 EST → 03:00 EDT (-4): 09:00 = 13:00Z, 18:00 = 22:00Z.
        // The interval is local 03-07 00:00 EST to 03-09 00:00 EDT.
        let slots = pro.instants(from: try utc("2026-03-07T05:00:00Z"), to: try utc("2026-03-09T04:00:00Z"), in: try zone("America/New_York"))
        #expect(slots == [
            try utc("2026-03-07T14:00:00Z"), try utc("2026-03-07T23:00:00Z"),
            try utc("2026-03-08T13:00:00Z"), try utc("2026-03-08T22:00:00Z"),
        ])
    }

    @Test("across New York's fall-back day there is exactly one 09:00 slot per local day, an hour later in UTC after the change")
    func fallBack() throws {
        // 2026-10-31 is EDT (-4): 09:00 = 13:00Z. 2026-11-01 02:00 EDT → 01:00 EST (-5):
        // 09:00 on 11-01 and 11-02 = 14:00Z. Interval: local 10-31 00:00 EDT to 11-03 00:00 EST.
        let slots = free.instants(from: try utc("2026-10-31T04:00:00Z"), to: try utc("2026-11-03T05:00:00Z"), in: try zone("America/New_York"))
        #expect(slots == [try utc("2026-10-31T13:00:00Z"), try utc("2026-11-01T14:00:00Z"), try utc("2026-11-02T14:00:00Z")])
    }

    @Test("a local time inside the spring-forward gap is pushed forward by the gap: 02:30 becomes 03:30 EDT, once")
    func slotInGap() throws {
        // 02:00–03:00 does not exist in New York on 2026-03-08; 03:30 EDT = 07:30Z.
        let schedule = CheckSchedule(localMinutes: [2 * 60 + 30], jitterSeconds: 0)
        let slots = schedule.instants(from: try utc("2026-03-08T05:00:00Z"), to: try utc("2026-03-09T04:00:00Z"), in: try zone("America/New_York"))
        #expect(slots == [try utc("2026-03-08T07:30:00Z")])
    }

    @Test("a local time that occurs twice at fall back is taken at its first occurrence only")
    func slotInOverlap() throws {
        // 01:30 on 2026-11-01 happens as 01:30 EDT = 05:30Z and again as 01:30 EST = 06:30Z.
        let schedule = CheckSchedule(localMinutes: [60 + 30], jitterSeconds: 0)
        let slots = schedule.instants(from: try utc("2026-11-01T04:00:00Z"), to: try utc("2026-11-02T05:00:00Z"), in: try zone("America/New_York"))
        #expect(slots == [try utc("2026-11-01T05:30:00Z")])
    }

    @Test("a half-hour offset zone is honoured: 09:00 in Asia/Kolkata is 03:30Z")
    func kolkata() throws {
        // IST is +05:30 all year.
        #expect(free.next(after: try utc("2026-06-01T00:00:00Z"), in: try zone("Asia/Kolkata")) == (try utc("2026-06-01T03:30:00Z")))
    }

    @Test("Lord Howe's half-hour DST end moves 09:00 thirty minutes later in UTC")
    func lordHoweDSTEnds() throws {
        // Verified with this machine's tz data: +11:00 until 2026-04-04T15:00Z
        // (02:00 local on 04-05, back to 01:30), +10:30 after.
        // 09:00 on 04-04 (+11) = 22:00Z on 04-03; 09:00 on 04-05 (+10:30) = 22:30Z on 04-04.
        let slots = free.instants(from: try utc("2026-04-03T12:00:00Z"), to: try utc("2026-04-05T12:00:00Z"), in: try zone("Australia/Lord_Howe"))
        #expect(slots == [try utc("2026-04-03T22:00:00Z"), try utc("2026-04-04T22:30:00Z")])
    }

    @Test("Lord Howe's half-hour DST start moves 09:00 thirty minutes earlier in UTC")
    func lordHoweDSTStarts() throws {
        // Verified with this machine's tz data: +10:30 until 2026-10-03T15:30Z
        // (02:00 local on 10-04, forward to 02:30), +11:00 after.
        // 09:00 on 10-03 (+10:30) = 22:30Z on 10-02; 09:00 on 10-04 (+11) = 22:00Z on 10-03.
        let slots = free.instants(from: try utc("2026-10-02T12:00:00Z"), to: try utc("2026-10-04T12:00:00Z"), in: try zone("Australia/Lord_Howe"))
        #expect(slots == [try utc("2026-10-02T22:30:00Z"), try utc("2026-10-03T22:00:00Z")])
    }

    @Test("next(after:) exactly at a slot returns the following slot")
    func nextIsStrictlyAfter() throws {
        // 2026-03-08 New York (EDT): 09:00 = 13:00Z, 18:00 = 22:00Z.
        #expect(pro.next(after: try utc("2026-03-08T13:00:00Z"), in: try zone("America/New_York")) == (try utc("2026-03-08T22:00:00Z")))
    }

    @Test("next(after:) one second before a slot returns that slot")
    func nextJustBefore() throws {
        #expect(pro.next(after: try utc("2026-03-08T12:59:59Z"), in: try zone("America/New_York")) == (try utc("2026-03-08T13:00:00Z")))
    }

    @Test("a Free schedule has one slot per local day and a Pro schedule two")
    func slotsPerDay() throws {
        // Asia/Tokyo (+9, no DST), local 2026-06-01 00:00 to 06-08 00:00: seven days.
        let tokyo = try zone("Asia/Tokyo")
        let start = try utc("2026-05-31T15:00:00Z"), end = try utc("2026-06-07T15:00:00Z")
        #expect(free.instants(from: start, to: end, in: tokyo).count == 7)
        #expect(pro.instants(from: start, to: end, in: tokyo).count == 14)
    }

    @Test("the jitter is in 0..<1800 seconds and spread across ids")
    func jitterRangeAndSpread() {
        let jitters = (0 ..< 1000).map { CheckSchedule.jitter(forUser: "u-\($0)") }
        #expect(jitters.allSatisfy { (0 ..< CheckSchedule.jitterWindowSeconds).contains($0) })
        #expect(Set(jitters).count >= 500)
    }

    @Test("the jitter is stable: FNV-1a 64 of the id, the same on every run and machine")
    func jitterIsStable() {
        // Computed independently: FNV-1a 64("u-0000000000000001") mod 1800 = 1620.
        #expect(CheckSchedule.jitter(forUser: "u-0000000000000001") == 1620)
        #expect(CheckSchedule.jitter(forUser: "u-0000000000000001") == CheckSchedule.jitter(forUser: "u-0000000000000001"))
    }

    @Test("a jittered slot is the unjittered slot plus the jitter in seconds")
    func jitterShiftsSlot() throws {
        let newYork = try zone("America/New_York")
        let jitter = CheckSchedule.jitter(forUser: "u-0000000000000001")
        let jittered = CheckSchedule(localMinutes: CheckSchedule.proMinutes, jitterSeconds: jitter)
        let after = try utc("2026-03-08T12:00:00Z")
        // 09:00 EDT = 13:00Z, plus 1620 s = 13:27:00Z.
        #expect(jittered.next(after: after, in: newYork) == pro.next(after: after, in: newYork).addingTimeInterval(Double(jitter)))
        #expect(jittered.next(after: after, in: newYork) == (try utc("2026-03-08T13:27:00Z")))
    }

    @Test("a slot jittered past local midnight is found by next(after:) and listed once by instants")
    func jitterAcrossMidnight() throws {
        // 23:59 EST + 1799 s: the 2025-12-31 slot lands at 2026-01-01T05:28:59Z, after local midnight.
        let newYork = try zone("America/New_York")
        let late = CheckSchedule(localMinutes: [23 * 60 + 59], jitterSeconds: 1799)
        #expect(late.next(after: try utc("2026-01-01T05:00:00Z"), in: newYork) == (try utc("2026-01-01T05:28:59Z")))
        let slots = late.instants(from: try utc("2026-01-01T05:00:00Z"), to: try utc("2026-01-04T05:00:00Z"), in: newYork)
        #expect(slots == [try utc("2026-01-01T05:28:59Z"), try utc("2026-01-02T05:28:59Z"), try utc("2026-01-03T05:28:59Z")])
    }

    @Test("forUser picks 09:00 and 18:00 for Pro or trial, 09:00 for Free, with the user's jitter")
    func forUserPicksTier() {
        let jitter = CheckSchedule.jitter(forUser: "u-7")
        #expect(CheckSchedule.forUser("u-7", pro: true) == CheckSchedule(localMinutes: [540, 1080], jitterSeconds: jitter))
        #expect(CheckSchedule.forUser("u-7", pro: false) == CheckSchedule(localMinutes: [540], jitterSeconds: jitter))
    }

    @Test("a user changing time zone gets 09:00 in the new zone")
    func timeZoneChange() throws {
        // At 2026-06-01T12:00Z it is 08:00 EDT in New York → next 09:00 EDT = 13:00Z;
        // it is 21:00 JST in Tokyo → next 09:00 JST on 06-02 = 2026-06-02T00:00Z.
        let instant = try utc("2026-06-01T12:00:00Z")
        let newYork = try zone("America/New_York"), tokyo = try zone("Asia/Tokyo")
        let inNewYork = free.next(after: instant, in: newYork), inTokyo = free.next(after: instant, in: tokyo)
        #expect(inNewYork != inTokyo)
        #expect(inNewYork == (try utc("2026-06-01T13:00:00Z")))
        #expect(inTokyo == (try utc("2026-06-02T00:00:00Z")))
        for (slot, timeZone) in [(inNewYork, newYork), (inTokyo, tokyo)] {
            let parts = calendar(in: timeZone).dateComponents([.hour, .minute, .second], from: slot)
            #expect(parts.hour == 9 && parts.minute == 0 && parts.second == 0)
        }
    }

    @Test("over all of 2026 a Pro schedule has exactly 730 slots, each at 09:00 or 18:00 local", arguments: [
        "America/New_York", "Australia/Lord_Howe", "Europe/London",
    ])
    func wholeYear(id: String) throws {
        let timeZone = try zone(id)
        let local = calendar(in: timeZone)
        let start = try #require(local.date(from: DateComponents(year: 2026, month: 1, day: 1)))
        let end = try #require(local.date(from: DateComponents(year: 2027, month: 1, day: 1)))
        let slots = pro.instants(from: start, to: end, in: timeZone)
        #expect(slots.count == 2 * 365)
        #expect(slots == slots.sorted())
        let offTime = slots.filter { slot in
            let parts = local.dateComponents([.hour, .minute, .second], from: slot)
            return !((parts.hour == 9 || parts.hour == 18) && parts.minute == 0 && parts.second == 0)
        }
        #expect(offTime.isEmpty)
    }
}
