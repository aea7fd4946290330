import Foundation

/// When a user's watchlists are checked (SPEC §3): at fixed local times of
/// day in the user's IANA time zone — Pro and trial 09:00 and 18:00, Free
/// 09:00 — each shifted later by a per-user jitter in [0, jitterWindow) so
/// users do not all hit the provider in the same second.
///
/// A *slot* on local calendar day D at local minute M is the instant at which
/// the wall clock in the time zone shows D at M:00, plus `jitterSeconds`
/// seconds of elapsed (absolute) time. Every local day has exactly one slot per
/// listed minute — never skipped, never doubled:
/// - if D at M does not exist (a spring-forward gap), the slot is pushed
///   forward by the gap's length (NY 02:30 on a spring-forward day → 03:30
///   EDT; Lord Howe 02:15 on its 30-minute gap day → 02:45);
/// - if D at M occurs twice (fall back), the slot is the first occurrence.
///
/// Day arithmetic is on local calendar days (a day number derived from the
/// local year/month/day), never on instants plus 86,400 seconds.
struct CheckSchedule: Sendable, Equatable {
    /// Local times of day, minutes after midnight, ascending (e.g. [540, 1080]).
    let localMinutes: [Int]
    /// Seconds added to every slot for this user, 0 ..< jitterWindowSeconds.
    let jitterSeconds: Int

    /// The jitter is drawn from [0, this) seconds.
    static let jitterWindowSeconds = 1800   // 30 minutes
    /// Pro and trial: 09:00 and 18:00 local.
    static let proMinutes = [9 * 60, 18 * 60]
    /// Free: 09:00 local.
    static let freeMinutes = [9 * 60]

    /// A schedule at `localMinutes` (non-empty, strictly ascending, each in
    /// 0 ..< 1440) shifted by `jitterSeconds` (0 ..< `jitterWindowSeconds`).
    init(localMinutes: [Int], jitterSeconds: Int) {
        // safe: schedules are built only from the constants below (proMinutes, freeMinutes) and the jitter function; a violation is a programming error
        precondition(!localMinutes.isEmpty, "a schedule needs at least one time of day")
        precondition(localMinutes.allSatisfy { (0 ..< 1440).contains($0) }, "local minutes must be in 0..<1440")
        precondition(zip(localMinutes, localMinutes.dropFirst()).allSatisfy { $0 < $1 }, "local minutes must be strictly ascending")
        precondition((0 ..< Self.jitterWindowSeconds).contains(jitterSeconds), "jitter must be in 0..<jitterWindowSeconds")
        self.localMinutes = localMinutes
        self.jitterSeconds = jitterSeconds
    }

    /// A stable jitter from the user id: FNV-1a 64-bit of its UTF-8 bytes,
    /// modulo the window. Same id → same jitter on every run and every machine
    /// (unlike `Hasher` / `hashValue`, which are seeded per process).
    static func jitter(forUser userID: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in userID.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(jitterWindowSeconds))
    }

    /// The first check instant strictly after `instant` in `timeZone`.
    ///
    /// Looks at the local day of `instant` from one day before to two days
    /// after (jitter can push a slot past midnight, and zones with odd offsets
    /// such as Australia/Lord_Howe exist), and returns the smallest slot
    /// `> instant`. Costs one `Calendar` and a few time-zone look-ups per call.
    func next(after instant: Date, in timeZone: TimeZone) -> Date {
        let day = Self.localDayNumber(of: instant, in: timeZone)
        var best: Date?
        for offset in -1 ... 2 {
            for slot in slots(onLocalDay: day + offset, in: timeZone) where slot > instant {
                if best.map({ slot < $0 }) ?? true { best = slot }
            }
        }
        guard let best else { preconditionFailure("a non-empty schedule always has a slot within two local days") }  // safe: four local days are searched and each holds every listed minute
        return best
    }

    /// Every check instant in the half-open interval [start, end), ascending.
    ///
    /// Covers the local days of `start` minus one through `end` plus one, so a
    /// slot jittered across midnight is neither lost nor counted twice. Empty
    /// when `end <= start`.
    func instants(from start: Date, to end: Date, in timeZone: TimeZone) -> [Date] {
        guard start < end else { return [] }
        let first = Self.localDayNumber(of: start, in: timeZone) - 1
        let last = Self.localDayNumber(of: end, in: timeZone) + 1
        var result: [Date] = []
        result.reserveCapacity((last - first + 1) * localMinutes.count)
        for day in first ... last {
            for slot in slots(onLocalDay: day, in: timeZone) where slot >= start && slot < end {
                result.append(slot)
            }
        }
        result.sort()
        return result
    }

    /// The slots of one local calendar day, given as days since 1970-01-01 in
    /// the local calendar: one per listed minute, jitter included.
    private func slots(onLocalDay day: Int, in timeZone: TimeZone) -> [Date] {
        let midnight = day * 86_400
        // Offsets one day either side of the day's wall-clock span: any single
        // offset change that can affect this day's times lies between them.
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(midnight - 86_400)))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(midnight + 2 * 86_400)))
        return localMinutes.map { minute in
            let wall = midnight + minute * 60
            let utc = Self.instant(ofWallClock: wall, offsetBefore: before, offsetAfter: after, in: timeZone)
            return Date(timeIntervalSince1970: Double(utc + jitterSeconds))
        }
    }

    /// The instant, in seconds since 1970, at which the clock in `timeZone`
    /// shows `wall` (local seconds since 1970-01-01 00:00 local): the first
    /// such instant if the time occurs twice, or the instant just after the
    /// gap, shifted by the same amount `wall` was inside it, if it does not
    /// occur at all.
    private static func instant(ofWallClock wall: Int, offsetBefore: Int, offsetAfter: Int, in timeZone: TimeZone) -> Int {
        func offset(at utc: Int) -> Int { timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc))) }
        if offsetBefore == offsetAfter, offset(at: wall - offsetBefore) == offsetBefore {
            return wall - offsetBefore
        }
        // Near a transition: every instant showing `wall` is `wall - o` for some
        // offset o in force at that instant; try the offsets seen nearby.
        var candidates = [offsetBefore, offsetAfter]
        candidates += candidates.map { offset(at: wall - $0) }
        let valid = candidates.filter { offset(at: wall - $0) == $0 }.map { wall - $0 }
        if let first = valid.min() { return first }
        // A gap: the clock jumped from below `wall` to above it. Read `wall`
        // with the offset in force before the jump, which lands as far past
        // the jump as `wall` was past its start.
        return wall - offsetBefore
    }

    /// The local calendar day of `instant` in `timeZone`, as days since
    /// 1970-01-01 in that zone's Gregorian calendar.
    private static func localDayNumber(of instant: Date, in timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        guard let year = parts.year, let month = parts.month, let day = parts.day else {
            preconditionFailure("a Gregorian calendar always yields year, month and day")  // safe: the components were asked for
        }
        return daysFromCivil(year: year, month: month, day: day)
    }

    /// Days from 1970-01-01 to the proleptic Gregorian date year-month-day
    /// (H. Hinnant's `days_from_civil`); exact for every date, no time zones.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension CheckSchedule {
    /// The schedule of a user on a tier: Pro/trial (`pro == true`) →
    /// `proMinutes`, Free (or anything else) → `freeMinutes`, with the user's
    /// jitter from `jitter(forUser:)`.
    static func forUser(_ userID: String, pro: Bool) -> CheckSchedule {
        CheckSchedule(localMinutes: pro ? proMinutes : freeMinutes, jitterSeconds: jitter(forUser: userID))
    }
}
