@testable import AlertsService
import Foundation
import Testing

/// `QuietHoursWindow.nextEnd` computes the digest's due time by arithmetic
/// on the zone's offset, and by `Calendar` only across a DST change: both
/// must give the same instant everywhere.
@Suite struct QuietHoursEndTests {
    /// Zones with spring-forward gaps and fall-back overlaps at different hours (Santiago and Havana change at midnight),
    /// half-hour and 45-minute offsets, and none.
    static let zones = [
        "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham",
        "America/Santiago", "America/Havana", "Australia/Sydney", "America/St_Johns", "UTC",
    ].map { TimeZone(identifier: $0)! }

    /// Ends at midnight, at 01:30 and 02:30 (which a spring-forward night skips or a fall-back night repeats), the default 07:00, and 23:59.
    static let windows = [
        QuietHoursWindow(start: 22 * 60, end: 0, enabled: true),
        QuietHoursWindow(start: 22 * 60, end: 90, enabled: true),
        QuietHoursWindow(start: 23 * 60, end: 150, enabled: true),
        QuietHoursWindow.standard,
        QuietHoursWindow(start: 0, end: 23 * 60 + 59, enabled: true),
        QuietHoursWindow(start: 0, end: 0, enabled: false),
    ]

    @Test("the arithmetic due time equals Calendar's for instants every 97 minutes and 13 seconds through 2026, DST nights included")
    func matchesCalendar() {
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00Z
        var compared = 0, mismatches: [String] = []
        for zone in Self.zones {
            var instant = start
            while instant < start.addingTimeInterval(365 * 86_400) {
                for window in Self.windows {
                    let fast = window.nextEnd(after: instant, in: zone)
                    let reference = window.nextEndByCalendar(after: instant, in: zone)
                    compared += 1
                    if fast != reference, mismatches.count < 5 { mismatches.append("\(zone.identifier) \(instant) \(window.description): \(fast) vs \(reference)") }
                }
                instant = instant.addingTimeInterval(97 * 60 + 13.25)
            }
        }
        #expect(compared > 250_000)
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test("on the nights a zone changes its clock the due time is still Calendar's, to the second around the change")
    func aroundTransitions() {
        for zone in Self.zones {
            var instant = Date(timeIntervalSince1970: 1_767_225_600)
            while let change = zone.nextDaylightSavingTimeTransition(after: instant), change < Date(timeIntervalSince1970: 1_798_761_600) {
                for offset in stride(from: -30 * 3_600.0, through: 30 * 3_600, by: 599.5) {
                    let at = change.addingTimeInterval(offset)
                    for window in Self.windows {
                        #expect(window.nextEnd(after: at, in: zone) == window.nextEndByCalendar(after: at, in: zone), "\(zone.identifier) \(at) \(window.description)")
                    }
                }
                instant = change.addingTimeInterval(1)
            }
        }
    }
}
