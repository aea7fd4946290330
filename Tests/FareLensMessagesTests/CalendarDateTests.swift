import FareLensMessages
import Foundation
import Testing

@Suite struct CalendarDateTests {
    @Test("description is YYYY-MM-DD with zero padding, the same as String(format: \"%04d-%02d-%02d\") for years 1–9999")
    func description() {
        for days in stride(from: -719_162, to: 2_932_896, by: 997) {
            let date = CalendarDate(daysSinceEpoch: days)
            #expect(date.description == String(format: "%04d-%02d-%02d", date.year, date.month, date.day), "\(days)")
        }
        #expect(CalendarDate(year: 2026, month: 3, day: 8)?.description == "2026-03-08")
        #expect(CalendarDate(year: 7, month: 12, day: 31)?.description == "0007-12-31")
    }
}
