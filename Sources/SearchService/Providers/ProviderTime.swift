import FareLensMessages
import Foundation

/// Date-time text as the providers send it, turned into the message forms
/// (`FlightSegment.departure_local` is "YYYY-MM-DDTHH:MM", no offset).
/// Arithmetic is on whole seconds since the epoch; no floating-point
/// calendars, no locale.
enum ProviderTime {
    /// A wall-clock minute: days since 1970-01-01 and minutes into that day.
    struct LocalMinute: Equatable {
        let day: Int
        let minuteOfDay: Int

        /// "YYYY-MM-DDTHH:MM".
        var text: String {
            "\(CalendarDate(daysSinceEpoch: day))T\(twoDigits(minuteOfDay / 60)):\(twoDigits(minuteOfDay % 60))"
        }

        /// Seconds since the epoch if this wall-clock time were UTC.
        var secondsAsUTC: Int { day * 86_400 + minuteOfDay * 60 }

        init(day: Int, minuteOfDay: Int) {
            self.day = day
            self.minuteOfDay = minuteOfDay
        }

        init(secondsAsUTC seconds: Int) {
            let day = Int((Double(seconds) / 86_400).rounded(.down))
            self.init(day: day, minuteOfDay: (seconds - day * 86_400) / 60)
        }
    }

    /// Parses "YYYY-MM-DDTHH:MM" with optional ":SS" (seconds dropped) and
    /// nothing after; nil otherwise.
    static func local(_ text: String) -> LocalMinute? {
        let parts = text.split(separator: "T", omittingEmptySubsequences: false)
        guard parts.count == 2, let date = CalendarDate(iso: parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard (2 ... 3).contains(clock.count), clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCIIDigit) }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), hour < 24, minute < 60,
              clock.count == 2 || (Int(clock[2]) ?? 60) < 60 else { return nil }
        return LocalMinute(day: date.daysSinceEpoch, minuteOfDay: hour * 60 + minute)
    }

    /// Parses "YYYY-MM-DDTHH:MM[:SS]" followed by "Z" or "±HH:MM": the local
    /// wall-clock minute and the instant (seconds since the epoch).
    static func withOffset(_ text: String) -> (local: LocalMinute, instant: Int)? {
        if text.hasSuffix("Z") {
            guard let local = local(String(text.dropLast())) else { return nil }
            return (local, local.secondsAsUTC)
        }
        guard text.count > 6 else { return nil }
        let offsetText = text.suffix(6)
        guard let sign = offsetText.first, sign == "+" || sign == "-",
              offsetText.dropFirst().count == 5, offsetText.dropFirst().dropFirst(2).first == ":",
              let hours = Int(offsetText.dropFirst().prefix(2)), let minutes = Int(offsetText.suffix(2)),
              let local = local(String(text.dropLast(6))) else { return nil }
        let offset = (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
        return (local, local.secondsAsUTC - offset)
    }

    /// The wall-clock minute of `instant` (seconds since the epoch) in the
    /// IANA zone `zone`; nil when the zone is unknown.
    static func local(atInstant instant: Int, inZone zone: String) -> LocalMinute? {
        guard !zone.isEmpty, let timeZone = TimeZone(identifier: zone) else { return nil }
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
        return LocalMinute(secondsAsUTC: instant + offset)
    }

    /// Minutes in an ISO 8601 duration such as "PT7H35M", "PT45M" or
    /// "P1DT2H" (seconds are dropped); nil for anything else.
    static func minutes(isoDuration text: String) -> Int? {
        guard text.hasPrefix("P"), text.count > 1 else { return nil }
        var total = 0
        var number = ""
        var inTime = false
        for character in text.dropFirst() {
            if character.isASCIIDigit {
                number.append(character)
                continue
            }
            if character == "T", number.isEmpty, !inTime {
                inTime = true
                continue
            }
            // At most six digits: a day count that fits an Int32 of minutes.
            guard number.count <= 6, let value = Int(number) else { return nil }
            number = ""
            switch (character, inTime) {
            case ("D", false): total += value * 1440
            case ("H", true): total += value * 60
            case ("M", true): total += value
            case ("S", true): break
            default: return nil
            }
        }
        return number.isEmpty ? total : nil
    }
}

private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
