import FareLensBus
import FareLensMessages
import Foundation

/// Checks what a create or update asks for before anything is written; each
/// failure is a ``WatchlistError`` naming the field (SPEC §3; the list is in
/// docs/watchlist.md).
struct WatchlistValidator: Sendable {
    /// What search's directory knows of an airport or metro code, nil for an unknown one (over the bus).
    let place: @Sendable (String) async throws(WatchlistError) -> KnownPlace?
    /// The currencies the exchange rates convert between, EUR included (search's ``ExchangeRatesRequest``, over the bus).
    let currencies: @Sendable () async throws(WatchlistError) -> Set<String>

    /// Longest "any dates" trip, in days.
    static let maximumTripDays = 60
    /// Furthest fixed departure or return, in days from the user's today.
    static let maximumDaysAhead = 365
    /// The mutes a user may choose, in days (SPEC §3).
    static let muteChoices: Set<Int32> = [7, 30]

    /// A code upper-cased, three letters, known to the directory.
    func airport(_ raw: String, field: String) async throws(WatchlistError) -> KnownPlace {
        guard !raw.trimmingCharacters(in: .whitespaces).isEmpty else { throw .invalidField(field, "is required") }
        let code = try Self.threeLetterCode(raw, field: field)
        guard let place = try await place(code) else { throw .unknownAirport(code, field: field) }
        return place
    }

    /// `raw` trimmed and upper-cased when it is three ASCII letters, whether
    /// or not the directory knows it; `invalid-field` naming `field` otherwise.
    static func threeLetterCode(_ raw: String, field: String) throws(WatchlistError) -> String {
        let code = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .invalidField(field, "'\(raw)' is not a three-letter IATA code")
        }
        return code
    }

    /// Origin and destination must differ, and not be in one city (LON and LHR).
    static func route(origin: KnownPlace, destination: KnownPlace) throws(WatchlistError) {
        guard origin.code != destination.code else { throw .invalidField("destination", "is the same as the origin (\(origin.code))") }
        if let refusal = KnownPlace.sameCityRefusal(origin: origin, destination: destination) { throw .invalidField("destination", refusal) }
    }

    /// The dates as stored: flexible `(min, max)` trip days, or a fixed trip
    /// that departs no earlier than `today` (the user's local date) and
    /// returns no earlier than it departs.
    static func dates(_ dates: WatchlistDates?, today: CalendarDate) throws(WatchlistError) -> StoredDates {
        guard let dates, let kind = dates.kind else { throw .invalidField("dates", "is required: flexible (trip length) or fixed (departure and return)") }
        switch kind {
        case .flexible(let flexible):
            let (low, high) = (Int(flexible.minTripDays), Int(flexible.maxTripDays))
            guard low >= 0, high <= maximumTripDays, low <= high, !(low == 0 && high > 0) else {
                throw .invalidField("dates.flexible", "trip length \(low)–\(high) days is out of range (1–\(maximumTripDays), minimum ≤ maximum; 0–0 for one-way)")
            }
            var stored = StoredDates(flexible: true, minTripDays: low, maxTripDays: high, departure: 0, return: 0)
            try range(flexible, into: &stored, today: today)
            return stored
        case .fixed(let fixed):
            guard fixed.hasDepartureDate else { throw .invalidField("dates.fixed.departure_date", "is required") }
            guard let departure = CalendarDate(fixed.departureDate) else {
                throw .invalidField("dates.fixed.departure_date", "\(fixed.departureDate.givenText) is not a real calendar date")
            }
            guard departure >= today else { throw .invalidField("dates.fixed.departure_date", "\(departure) is in the past (today is \(today) in the user's time zone)") }
            guard today.days(until: departure) <= maximumDaysAhead else {
                throw .invalidField("dates.fixed.departure_date", "\(departure) is more than \(maximumDaysAhead) days ahead")
            }
            var returning = 0
            if fixed.hasReturnDate {
                guard let date = CalendarDate(fixed.returnDate) else { throw .invalidField("dates.fixed.return_date", "\(fixed.returnDate.givenText) is not a real calendar date") }
                guard date >= departure else { throw .invalidField("dates.fixed.return_date", "\(date) is before the departure date \(departure)") }
                guard today.days(until: date) <= maximumDaysAhead else {
                    throw .invalidField("dates.fixed.return_date", "\(date) is more than \(maximumDaysAhead) days ahead")
                }
                returning = LocalDateNumber.number(date.message)
            }
            return StoredDates(flexible: false, minTripDays: 0, maxTripDays: 0, departure: LocalDateNumber.number(departure.message), return: returning)
        }
    }

    /// A flexible watchlist's range (docs/watchlist.md, "Flexible dates"):
    /// both ends or neither, real dates, the end no earlier than the start nor
    /// than `today` and at most ``maximumDaysAhead`` ahead, at most
    /// ``DatePairs/maximumRangeDays`` long; weekend trips only with a range
    /// and a trip length that fits a weekend; and at least one trip in it.
    static func range(_ flexible: FlexibleDates, into stored: inout StoredDates, today: CalendarDate) throws(WatchlistError) {
        let field = "dates.flexible"
        guard flexible.hasEarliestDeparture || flexible.hasLatestReturn else {
            guard !flexible.weekendsOnly else { throw .invalidField("\(field).weekends_only", "needs a range: earliest_departure and latest_return") }
            return
        }
        guard flexible.hasEarliestDeparture else { throw .invalidField("\(field).earliest_departure", "is required with latest_return: a range has both ends") }
        guard flexible.hasLatestReturn else { throw .invalidField("\(field).latest_return", "is required with earliest_departure: a range has both ends") }
        guard let start = CalendarDate(flexible.earliestDeparture) else {
            throw .invalidField("\(field).earliest_departure", "\(flexible.earliestDeparture.givenText) is not a real calendar date")
        }
        guard let end = CalendarDate(flexible.latestReturn) else {
            throw .invalidField("\(field).latest_return", "\(flexible.latestReturn.givenText) is not a real calendar date")
        }
        guard start <= end else { throw .invalidField("\(field).latest_return", "\(end) is before the earliest departure \(start)") }
        guard end >= today else { throw .invalidField("\(field).latest_return", "\(end) is in the past (today is \(today) in the user's time zone)") }
        guard today.days(until: end) <= maximumDaysAhead else { throw .invalidField("\(field).latest_return", "\(end) is more than \(maximumDaysAhead) days ahead") }
        guard start.days(until: end) < DatePairs.maximumRangeDays else {
            throw .invalidField("\(field).latest_return", "the range \(start)–\(end) is longer than \(DatePairs.maximumRangeDays) days")
        }
        if flexible.weekendsOnly, stored.maxTripDays > 0, stored.minTripDays > 3 {
            throw .invalidField("\(field).min_trip_days", "a weekend trip lasts 1–3 nights, not \(stored.minTripDays)–\(stored.maxTripDays)")
        }
        stored.rangeStart = LocalDateNumber.number(start.message)
        stored.rangeEnd = LocalDateNumber.number(end.message)
        stored.weekendsOnly = flexible.weekendsOnly
        let trips = DatePairs.candidates(
            from: start, to: end, minNights: stored.minTripDays, maxNights: stored.maxTripDays, weekendsOnly: stored.weekendsOnly, today: today)
        guard !trips.isEmpty else {
            throw .invalidField("\(field).latest_return", "the range \(max(start, today))–\(end) holds no \(stored.weekendsOnly ? "weekend " : "")trip of \(stored.minTripDays)–\(stored.maxTripDays) nights")
        }
    }

    /// Unspecified means economy.
    static func cabin(_ cabin: Cabin) throws(WatchlistError) -> Cabin {
        switch cabin {
        case .unspecified: return .economy
        case .economy, .premiumEconomy, .business, .first: return cabin
        default: throw .invalidField("cabin", "\(cabin) is not a cabin")
        }
    }

    /// A threshold above zero in a known currency.
    static func threshold(_ money: Money) throws(WatchlistError) -> Money {
        var threshold = money
        threshold.currency = money.currency.uppercased()
        guard Money.isCurrencyCode(threshold.currency) else {
            throw .invalidField("price_threshold.currency", "'\(money.currency)' is not an ISO 4217 currency code")
        }
        guard threshold.minorUnits > 0 else { throw .invalidField("price_threshold", "must be above zero") }
        return threshold
    }

    /// A threshold in another currency than the one searches from `origin`
    /// are answered in is compared with each fare converted at the day's
    /// rate (docs/watchlist.md, "Currencies"): accepted when the exchange
    /// rates (search's ``ExchangeRatesRequest``) list both currencies,
    /// refused (`unsupported-currency`) otherwise.
    func thresholdCurrency(_ threshold: Money, origin: KnownPlace) async throws(WatchlistError) {
        guard !origin.pricingCurrency.isEmpty, threshold.currency != origin.pricingCurrency else { return }
        let known = try await currencies()
        guard known.contains(threshold.currency), known.contains(origin.pricingCurrency) else {
            throw .unsupportedCurrency(threshold.currency, origin: origin.code, pricedIn: origin.pricingCurrency)
        }
    }

    /// Unspecified means price drop.
    static func alertMode(_ mode: AlertMode) throws(WatchlistError) -> AlertMode {
        switch mode {
        case .unspecified: return .priceDrop
        case .priceDrop, .dailyDigest, .priceDropAndDigest: return mode
        default: throw .invalidField("alert_mode", "\(mode) is not an alert mode")
        }
    }

    /// 7 or 30 days; 0 unmutes.
    static func muteDays(_ days: Int32) throws(WatchlistError) -> Int32 {
        guard days == 0 || muteChoices.contains(days) else { throw .invalidField("mute_days", "\(days) is not 7 or 30 (0 unmutes)") }
        return days
    }
}

/// Dates in the `watchlist` table's form.
struct StoredDates: Sendable, Equatable {
    var flexible: Bool
    var minTripDays: Int
    var maxTripDays: Int
    /// `yyyymmdd`, 0 when unset.
    var departure: Int
    var `return`: Int
    /// A flexible range, `yyyymmdd`; both 0 for the rolling window.
    var rangeStart: Int = 0
    var rangeEnd: Int = 0
    var weekendsOnly: Bool = false
}
