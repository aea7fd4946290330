public import FareLensMessages
public import Foundation

/// A search request checked against SPEC §1, ready for providers.
public struct ValidatedSearch: Sendable, Hashable {
    /// The request's own dates, codes and counts.
    public let query: FareQuery
    /// 0–3: search ±this many days around each date.
    public let flexibleDays: Int
    /// Drop offers above this total (same currency as the offers), if set.
    public let maxPrice: Money?
    public let purpose: SearchPurpose
    public let userID: String

    /// The queries providers answer: the request's dates, or, for a
    /// flexible search, the trip shifted by each of −`flexibleDays` …
    /// +`flexibleDays` days, departure and return together (so the trip
    /// length is kept): at most 7 date pairs for ±3, each one provider call
    /// per live provider tried (docs/search.md). Shifts that would depart
    /// before `today`, or depart or return more than ``horizonDays`` after
    /// it, are skipped.
    public func expandedQueries(today: CalendarDate) -> [FareQuery] {
        guard flexibleDays > 0 else { return [query] }
        let last = today.adding(days: Self.horizonDays)
        var queries: [FareQuery] = []
        for shift in -flexibleDays ... flexibleDays {
            let departure = query.departureDate.adding(days: shift)
            let returning = query.returnDate?.adding(days: shift)
            guard departure >= today, (returning ?? departure) <= last else { continue }
            var shifted = query
            shifted.departureDate = departure
            shifted.returnDate = returning
            queries.append(shifted)
        }
        return queries
    }

    /// How far ahead a search may depart or return, in days from the origin's today.
    public static let horizonDays = 365
}

/// Checks flight searches (SPEC §1): every error names its field.
public struct SearchValidator: Sendable {
    let directory: AirportDirectory

    public init(directory: AirportDirectory) { self.directory = directory }

    /// Validates `request` as of `now` ("in the past" is judged in the
    /// origin's local date, so a late-evening search in Honolulu is not refused).
    public func validate(_ request: SearchFlightsRequest, now: Date) throws(SearchError) -> ValidatedSearch {
        let origin = try directory.validatedCode(request.origin, field: "origin")
        let destination = try directory.validatedCode(request.destination, field: "destination")
        guard origin != destination else { throw .invalidField("destination", "equals origin (\(origin))") }
        if let from = directory.place(origin), let to = directory.place(destination), let refusal = KnownPlace.sameCityRefusal(origin: from, destination: to) {
            throw .invalidField("destination", refusal)
        }
        guard request.hasDepartureDate else { throw .invalidField("departure_date", "is required") }
        guard let departure = CalendarDate(request.departureDate) else { throw .invalidField("departure_date", "\(request.departureDate.givenText) is not a real calendar date") }
        let zone = TimeZones.zone(directory.timeZone(of: origin) ?? "UTC")
        let today = CalendarDate.of(now, in: zone)
        guard departure >= today else { throw .invalidField("departure_date", "\(departure) is in the past (today is \(today) at \(origin))") }
        guard departure <= today.adding(days: ValidatedSearch.horizonDays) else {
            throw .invalidField("departure_date", "\(departure) is more than \(ValidatedSearch.horizonDays) days ahead")
        }
        var returnDate: CalendarDate?
        if request.hasReturnDate {
            guard let parsed = CalendarDate(request.returnDate) else { throw .invalidField("return_date", "\(request.returnDate.givenText) is not a real calendar date") }
            guard parsed >= departure else { throw .invalidField("return_date", "\(parsed) is before the departure date \(departure)") }
            guard parsed <= today.adding(days: ValidatedSearch.horizonDays) else {
                throw .invalidField("return_date", "\(parsed) is more than \(ValidatedSearch.horizonDays) days ahead")
            }
            returnDate = parsed
        }
        try Self.checkTravellers(adults: Int(request.adults), children: Int(request.children), infants: Int(request.infants))
        guard (0 ... 3).contains(request.flexibleDays) else { throw .invalidField("flexible_days", "\(request.flexibleDays) is outside 0–3") }
        guard request.purpose != .unspecified, case .some = SearchPurpose(rawValue: request.purpose.rawValue) else {
            throw .invalidField("purpose", "must be user search, Pro watchlist, Free watchlist or background sweep")
        }
        let cabin: Cabin
        switch request.cabin {
        case .unspecified: cabin = .economy
        case .economy, .premiumEconomy, .business, .first: cabin = request.cabin
        case .UNRECOGNIZED(let value): throw .invalidField("cabin", "\(value) is not a cabin")
        }
        var maxPrice: Money?
        if request.hasMaxPrice {
            guard request.maxPrice.minorUnits > 0 else { throw .invalidField("max_price", "must be above zero") }
            guard request.maxPrice.currency.count == 3 else { throw .invalidField("max_price", "needs a three-letter currency code") }
            var limit = request.maxPrice
            limit.currency = limit.currency.uppercased()
            guard Money.isCurrencyCode(limit.currency) else {
                throw .invalidField("max_price", "'\(request.maxPrice.currency)' is not an ISO 4217 currency code")
            }
            maxPrice = limit
        }
        let query = FareQuery(
            origin: origin, destination: destination, departureDate: departure, returnDate: returnDate,
            adults: Int(request.adults), children: Int(request.children), infants: Int(request.infants),
            cabin: cabin, nonstopOnly: request.nonstopOnly, currency: maxPrice?.currency.uppercased() ?? FareQuery.defaultCurrency
        )
        return ValidatedSearch(query: query, flexibleDays: Int(request.flexibleDays), maxPrice: maxPrice, purpose: request.purpose, userID: request.userID)
    }

    /// Adults 1–9, children 0–5, infants 0–2 and never more than adults, at most 9 in all.
    static func checkTravellers(adults: Int, children: Int, infants: Int) throws(SearchError) {
        guard (1 ... 9).contains(adults) else { throw .invalidField("adults", "\(adults) is outside 1–9") }
        guard (0 ... 5).contains(children) else { throw .invalidField("children", "\(children) is outside 0–5") }
        guard (0 ... 2).contains(infants) else { throw .invalidField("infants", "\(infants) is outside 0–2") }
        guard infants <= adults else { throw .invalidField("infants", "\(infants) infants need at least as many adults (\(adults))") }
        guard adults + children + infants <= 9 else { throw .invalidField("travellers", "\(adults + children + infants) travellers; at most 9 in total") }
    }
}
