import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension ScoringService {
    /// Scores a hypothetical fare against its route's history (nothing is
    /// recorded): "not enough data yet" with fewer than 7 days of history.
    func scoreFare(_ request: ScoreFareRequest) async throws(ScoringError) -> ScoreFareResponse {
        let (origin, destination) = try await route(request.origin, request.destination)
        guard request.hasDepartureDate else { throw .invalidField("departure_date", "is required") }
        guard let departure = CalendarDate(request.departureDate) else {
            throw .invalidField("departure_date", "\(request.departureDate.givenText) is not a real calendar date")
        }
        let today = Self.day(of: clock.now())
        guard departure.daysSinceEpoch >= today else { throw .invalidField("departure_date", "\(departure) is in the past") }
        guard departure.daysSinceEpoch - today <= 365 else { throw .invalidField("departure_date", "\(departure) is more than 365 days ahead") }
        let price = try Self.price(request.price)
        let cabin = try Self.cabin(request.cabin)
        let month = departure.year * 100 + departure.month
        let history = try read { db in
            try DailyMinimumRecord.days(
                origin: origin, destination: destination, cabin: cabin.rawValue, departureMonth: month, currency: price.currency,
                since: today - DailyMinimumRecord.retentionDays, in: db)
        }
        var response = ScoreFareResponse()
        response.score = DealScoreFormula.score(ScoreInput(
            price: price.minorUnits, currency: price.currency, statistics: RouteStatistics.compute(history, today: today - 1),  // the days before today, as ingest scores
            routeObservations: reference.observations(origin, destination), daysToDeparture: departure.daysSinceEpoch - today,
            carrier: reference.carriers[request.carrier.uppercased()]))
        return response
    }

    /// A route's history for one departure month (or all months): averages,
    /// typical range, 6-month low and the 30-day series, each from the
    /// route's main currency. With fewer than 7 days only the count and the series.
    func priceHistory(_ request: PriceHistoryRequest) async throws(ScoringError) -> PriceHistoryResponse {
        let (origin, destination) = try await route(request.origin, request.destination)
        let month: Int
        switch (request.departureYear, request.departureMonth) {
        case (0, 0): month = 0
        case (2000 ... 2100, 1 ... 12): month = Int(request.departureYear) * 100 + Int(request.departureMonth)
        case (_, 1 ... 12): throw .invalidField("departure_year", "\(request.departureYear) is not in 2000–2100")
        default: throw .invalidField("departure_month", "\(request.departureMonth) is not a month (1–12)")
        }
        let cabin = try Self.cabin(request.cabin)
        let today = Self.day(of: clock.now())
        let (currency, days) = try read { db in
            let currency = try DailyMinimumRecord.mainCurrency(origin: origin, destination: destination, cabin: cabin.rawValue, in: db)
            return (currency, try DailyMinimumRecord.days(
                origin: origin, destination: destination, cabin: cabin.rawValue, departureMonth: month, currency: currency,
                since: today - DailyMinimumRecord.retentionDays, in: db))
        }
        var response = PriceHistoryResponse()
        response.series30Days = days.filter { $0.day > today - 30 && $0.day <= today }.map { day in
            var point = PricePoint()
            point.date = CalendarDate(daysSinceEpoch: day.day).message
            point.minPrice = Self.money(Double(day.minimum), currency)
            point.observations = Int32(clamping: day.observations)
            return point
        }
        guard let statistics = RouteStatistics.compute(days, today: today) else { return response }
        response.daysOfHistory = Int32(statistics.daysOfHistory)
        response.enoughData = statistics.enoughData
        response.updatedAtUnixMs = Int64(days.last?.day ?? 0) * 86_400_000
        guard statistics.enoughData else { return response }
        if let average30 = statistics.average30 { response.average30Days = Self.money(average30, currency) }
        response.average90Days = Self.money(statistics.average90, currency)
        response.typicalLow = Self.money(statistics.typicalLow, currency)
        response.typicalHigh = Self.money(statistics.typicalHigh, currency)
        response.lowSixMonths = Self.money(Double(statistics.lowestSixMonths), currency)
        response.lowSixMonthsDate = CalendarDate(daysSinceEpoch: statistics.lowestSixMonthsDay).message
        return response
    }

    // MARK: Checks and helpers

    /// Two codes search's directory knows, upper-cased, that can be a
    /// route's ends: different, and not in one city (LON and LHR).
    func route(_ origin: String, _ destination: String) async throws(ScoringError) -> (origin: String, destination: String) {
        let from = try await place(origin, field: "origin")
        let to = try await place(destination, field: "destination")
        guard from.code != to.code else { throw .invalidField("destination", "is the same as the origin (\(from.code))") }
        if let refusal = KnownPlace.sameCityRefusal(origin: from, destination: to) { throw .invalidField("destination", refusal) }
        return (from.code, to.code)
    }

    /// What search's directory knows of a code.
    func place(_ raw: String, field: String) async throws(ScoringError) -> KnownPlace {
        let code = raw.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw .invalidField(field, "'\(raw)' is not a three-letter IATA code") }
        let known: KnownPlace?
        do {
            known = try await AirportLookupRequest.place(code, on: bus)
        } catch {
            throw .unavailable("search's airport directory", cause: error)
        }
        guard let known else { throw .unknownAirport(code, field: field) }
        return known
    }

    /// A price above zero in a known currency.
    static func price(_ money: Money) throws(ScoringError) -> Money {
        var price = money
        price.currency = money.currency.uppercased()
        guard Money.isCurrencyCode(price.currency) else { throw .invalidField("price.currency", "'\(money.currency)' is not an ISO 4217 currency code") }
        guard price.minorUnits > 0 else { throw .invalidField("price", "must be above zero") }
        return price
    }

    /// Unspecified means economy.
    static func cabin(_ cabin: Cabin) throws(ScoringError) -> Cabin {
        switch cabin {
        case .unspecified: return .economy
        case .economy, .premiumEconomy, .business, .first: return cabin
        default: throw .invalidField("cabin", "\(cabin) is not a cabin")
        }
    }

    static func money(_ minorUnits: Double, _ currency: String) -> Money {
        Money(minorUnits: Int64(minorUnits.rounded()), currency: currency)
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(ScoringError) -> T {
        try database.read(body, storageError: ScoringError.storage)
    }
}
