import FareLensMessages
import Foundation

/// What the policy needs to know about the user an alert is for, asked of
/// the subscription service (`GetUsers`) when the alert is decided: their
/// time zone, quiet hours and the tier's daily cap of immediate alerts.
struct AlertRecipient: Sendable, Equatable {
    var userID: String
    let zone: TimeZone
    let quietHours: QuietHoursWindow
    /// Immediate alerts per local calendar day (Free 3, Pro and trial 6: the tier's entitlement).
    var dailyCap: Int
    var tier: Tier
    /// The currency the user reads prices in ("≈ …" beside a fare in another; issue #60); empty for none chosen.
    var currency = ""
    /// The reason of an alert held in quiet hours with nothing more to say,
    /// "Quiet hours (22:00–07:00 in Europe/London); held for the digest":
    /// nearly every decision in quiet hours has it, so recipients with the
    /// same zone and window share one (``RecipientZones``).
    let heldReason: String

    /// The recipient as the subscription service describes them, with
    /// `zone`, `quietHours` and `heldReason` as ``RecipientZones`` made them.
    init(user: User, entitlements: Entitlements, zone: TimeZone, quietHours: QuietHoursWindow, heldReason: String) {
        userID = user.userID
        self.zone = zone
        self.quietHours = quietHours
        dailyCap = Int(entitlements.immediateAlertsPerDay)
        tier = user.tier
        currency = user.currency
        self.heldReason = heldReason
    }

    init(userID: String, zone: TimeZone, quietHours: QuietHoursWindow = .standard, dailyCap: Int, tier: Tier) {
        self.userID = userID
        self.zone = zone
        self.quietHours = quietHours
        self.dailyCap = dailyCap
        self.tier = tier
        heldReason = Self.quietHoursReason(quietHours, in: zone)
    }

    /// "Quiet hours (22:00–07:00 in Europe/London)`why`; held for the digest",
    /// with its capacity reserved up front (interpolating it grew the string twice).
    static func quietHoursReason(_ window: QuietHoursWindow, in zone: TimeZone, _ why: String = "") -> String {
        let parts = ["Quiet hours (", window.description, " in ", zone.identifier, ")", why, "; held for the digest"]
        var reason = ""
        reason.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count })
        for part in parts { reason += part }
        return reason
    }
}

/// Quiet hours as minutes of the local day: from `start` (inclusive) to
/// `end` (exclusive), wrapping past midnight when `start > end`. Equal
/// start and end, or disabled, means no quiet hours.
struct QuietHoursWindow: Sendable, Hashable {
    /// Minutes after local midnight, 0–1439.
    var start: Int
    var end: Int
    var enabled: Bool

    /// The SPEC's default: 22:00–07:00.
    static let standard = QuietHoursWindow(start: 22 * 60, end: 7 * 60, enabled: true)

    init(start: Int, end: Int, enabled: Bool) {
        self.start = start
        self.end = end
        self.enabled = enabled
    }

    /// The user's setting; unset means the default 22:00–07:00.
    init(_ setting: QuietHours?) {
        guard let setting else {
            self = .standard
            return
        }
        guard !setting.disabled else {
            self.init(start: 0, end: 0, enabled: false)
            return
        }
        let start = Int(setting.hasStart ? setting.start.hour * 60 + setting.start.minute : 22 * 60)
        let end = Int(setting.hasEnd ? setting.end.hour * 60 + setting.end.minute : 7 * 60)
        self.init(start: start, end: end, enabled: true)
    }

    /// Whether `instant` falls in quiet hours by the wall clock in `zone`
    /// (a DST change moves the window with the local clock, as people expect).
    func contains(_ instant: Date, in zone: TimeZone) -> Bool {
        guard enabled, start != end else { return false }
        let minute = Self.minuteOfDay(instant, in: zone)
        return start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
    }

    /// Minutes after local midnight when the digest is due: the end of quiet hours, or 07:00 without them.
    private var endMinute: Int { enabled && start != end ? end : 7 * 60 }

    /// The next moment quiet hours end after `instant`, in `zone`: when held
    /// alerts go out in the digest. Without quiet hours, 07:00 local.
    func nextEnd(after instant: Date, in zone: TimeZone) -> Date {
        // When the zone keeps one offset from today's local midnight to the answer (no DST change in between: nearly
        // always), the local end is plain arithmetic; `Calendar` cost more than the rest of a held decision. Across a
        // change (a skipped 02:30 resolves after the gap; a repeated 01:30 is its first occurrence), `Calendar` below.
        let offset = zone.secondsFromGMT(for: instant)
        let local = Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(offset)
        let midnight = (local >= 0 ? local / 86_400 : (local - 86_399) / 86_400) * 86_400
        let localEnd = midnight + Int64(endMinute * 60) + (midnight + Int64(endMinute * 60) <= local ? 86_400 : 0)
        let end = Date(timeIntervalSince1970: TimeInterval(localEnd - Int64(offset)))
        let startOfDay = Date(timeIntervalSince1970: TimeInterval(midnight - Int64(offset)))
        if zone.secondsFromGMT(for: end) == offset, zone.secondsFromGMT(for: startOfDay) == offset { return end }
        return nextEndByCalendar(after: instant, in: zone)
    }

    /// ``nextEnd(after:in:)`` by `Calendar` alone: across a DST change, and the reference its fast path is tested against.
    func nextEndByCalendar(after instant: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = Self.localDay(instant, in: zone)
        for offset in 0...2 {
            let day = today.adding(days: offset)
            let components = DateComponents(year: day.year, month: day.month, day: day.day, hour: endMinute / 60, minute: endMinute % 60)
            // A time a DST gap skips resolves to the moment after the gap.
            if let candidate = calendar.date(from: components), candidate > instant { return candidate }
        }
        return instant.addingTimeInterval(86_400)  // safe: unreachable (a day of 23–25 hours always has its next end within 2 days); a day later is a sane fallback
    }

    /// "22:00–07:00".
    var description: String {
        enabled && start != end ? "\(Self.clock(start))–\(Self.clock(end))" : "off"
    }

    /// "07:00" for minute 420.
    static func clock(_ minute: Int) -> String {
        // Looked up: a held decision's reason names its quiet hours, and formatting them was a tenth of deciding it.
        guard clockFaces.indices.contains(minute) else { return formattedClock(minute) }
        return clockFaces[minute]
    }

    /// Every minute of the day as ``clock(_:)`` shows it.
    private static let clockFaces = (0..<1_440).map(formattedClock)

    private static func formattedClock(_ minute: Int) -> String {
        let hours = minute / 60, minutes = minute % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes)"
    }

    /// Minutes after local midnight, from the zone's offset at that instant
    /// (no `Calendar`: this runs for every decision).
    static func minuteOfDay(_ instant: Date, in zone: TimeZone) -> Int {
        let local = localSeconds(instant, in: zone)
        return Int(((local % 86_400) + 86_400) % 86_400) / 60
    }

    /// The local calendar day of `instant` in `zone`.
    static func localDay(_ instant: Date, in zone: TimeZone) -> CalendarDate {
        let local = localSeconds(instant, in: zone)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        return CalendarDate(daysSinceEpoch: Int(days))
    }

    private static func localSeconds(_ instant: Date, in zone: TimeZone) -> Int64 {
        Int64(instant.timeIntervalSince1970.rounded(.down)) + Int64(zone.secondsFromGMT(for: instant))
    }
}
