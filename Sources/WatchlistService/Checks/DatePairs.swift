import FareLensMessages

/// One trip a flexible watchlist may take: a departure and, for a return
/// trip, the day back.
struct DatePair: Sendable, Equatable {
    var departure: CalendarDate
    /// Nil for one-way.
    var returning: CalendarDate?

    /// Nights away; 0 for one-way.
    var nights: Int { returning.map { departure.days(until: $0) } ?? 0 }
}

/// The trips a flexible watchlist with a date range holds, and the bounded
/// share of them one check scans (docs/watchlist.md, "Flexible dates").
///
/// A range is an earliest departure and a latest day back (for one-way, the
/// latest departure). Trips last `minNights`–`maxNights` nights (0–0:
/// one-way), or, with `weekendsOnly`, leave on a Friday or Saturday and come
/// back on the Sunday or Monday after (1–3 nights, still within the length
/// when one is given). Days before the user's today are not trips any more.
enum DatePairs {
    /// Longest range, first departure to last day back.
    static let maximumRangeDays = 366

    /// Every trip in the range that has not departed by `today`, by
    /// departure and then length.
    static func candidates(
        from earliest: CalendarDate, to latest: CalendarDate, minNights: Int, maxNights: Int, weekendsOnly: Bool, today: CalendarDate
    ) -> [DatePair] {
        let first = max(earliest, today)
        guard first <= latest else { return [] }
        var pairs: [DatePair] = []
        var departure = first
        while departure <= latest {
            if weekendsOnly {
                let weekday = Self.weekday(departure)
                if weekday == .friday || weekday == .saturday {
                    for nights in 1 ... 3 {
                        let back = departure.adding(days: nights)
                        let backDay = Self.weekday(back)
                        guard backDay == .sunday || backDay == .monday, back <= latest else { continue }
                        guard maxNights == 0 || (minNights ... maxNights).contains(nights) else { continue }
                        pairs.append(DatePair(departure: departure, returning: back))
                    }
                }
            } else if maxNights == 0 {
                pairs.append(DatePair(departure: departure, returning: nil))
            } else {
                for nights in minNights ... maxNights {
                    let back = departure.adding(days: nights)
                    guard back <= latest else { break }
                    pairs.append(DatePair(departure: departure, returning: back))
                }
            }
            departure = departure.adding(days: 1)
        }
        return pairs
    }

    /// The pairs one check scans: all of them when they fit in `limit`;
    /// otherwise `limit` of them from `cursor` on, wrapping round, so that
    /// successive checks (the cursor moved on by ``nextCursor(after:count:limit:)``)
    /// cover every pair in turn.
    static func scanned(_ candidates: [DatePair], limit: Int, cursor: Int) -> [DatePair] {
        guard limit > 0, !candidates.isEmpty else { return [] }
        guard candidates.count > limit else { return candidates }
        let start = ((cursor % candidates.count) + candidates.count) % candidates.count
        return (0 ..< limit).map { candidates[(start + $0) % candidates.count] }
    }

    /// Where the next check starts: `limit` further on (0 when every pair fits).
    static func nextCursor(after cursor: Int, count: Int, limit: Int) -> Int {
        guard count > limit, limit > 0 else { return 0 }
        return (cursor % count + limit) % count
    }

    enum Weekday: Int { case monday, tuesday, wednesday, thursday, friday, saturday, sunday }

    /// 1970-01-01 was a Thursday.
    static func weekday(_ date: CalendarDate) -> Weekday {
        Weekday(rawValue: ((date.daysSinceEpoch + 3) % 7 + 7) % 7) ?? .monday
    }
}
