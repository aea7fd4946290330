public import Foundation

/// A calendar day with no time and no zone (a departure date), valid by
/// construction. Day arithmetic uses the proleptic Gregorian calendar.
public struct CalendarDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// A date, or nil when the day does not exist (2026-02-30).
    public init?(year: Int, month: Int, day: Int) {
        guard (1 ... 9999).contains(year), (1 ... 12).contains(month),
              (1 ... Self.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    public init?(iso text: some StringProtocol) {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The message form; nil when the message is not a real day.
    public init?(_ message: LocalDate) {
        self.init(year: Int(message.year), month: Int(message.month), day: Int(message.day))
    }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The day `daysSinceEpoch` days after 1970-01-01.
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        self.year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        self.month = month
        self.day = day
    }

    /// The date `count` days later (earlier for negative counts).
    public func adding(days count: Int) -> CalendarDate { CalendarDate(daysSinceEpoch: daysSinceEpoch + count) }

    /// Whole days from `self` to `other`.
    public func days(until other: CalendarDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// The local date of `instant` in `timeZone`.
    public static func of(_ instant: Date, in timeZone: TimeZone) -> CalendarDate {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down)) + timeZone.secondsFromGMT(for: instant)
        return CalendarDate(daysSinceEpoch: Int((Double(seconds) / 86_400).rounded(.down)))
    }

    /// The message form.
    public var message: LocalDate {
        var date = LocalDate()
        date.year = Int32(year)
        date.month = Int32(month)
        date.day = Int32(day)
        return date
    }

    /// `YYYY-MM-DD` (built without `String(format:)`, which is slow on Linux and runs per alert decision).
    public var description: String {
        // Ten ASCII digits and dashes written in place: a small string, no allocation (alert rows store local days).
        if (0 ... 9999).contains(year) {
            return String(unsafeUninitializedCapacity: 10) { text in
                func put(_ digits: Int, at offset: Int) {
                    text[offset] = UInt8(ascii: "0") + UInt8(digits / 10)
                    text[offset + 1] = UInt8(ascii: "0") + UInt8(digits % 10)
                }
                put(year / 100, at: 0)
                put(year % 100, at: 2)
                put(month, at: 5)
                put(day, at: 8)
                text[4] = UInt8(ascii: "-")
                text[7] = UInt8(ascii: "-")
                return 10
            }
        }
        let yearText = String(year)
        let paddedYear = year >= 0 && yearText.count < 4 ? String(repeating: "0", count: 4 - yearText.count) + yearText : yearText
        return paddedYear + (month < 10 ? "-0" : "-") + String(month) + (day < 10 ? "-0" : "-") + String(day)
    }

    public static func < (lhs: CalendarDate, rhs: CalendarDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension LocalDate {
    /// The date as it was given, `YYYY-MM-DD`, whether or not it is a real
    /// calendar date: what an error about it quotes (`2027-02-30`).
    public var givenText: String {
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value.magnitude)
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }
}
