import FareLensMessages
import Foundation
import SearchService
import Testing

@Suite("Search validation")
struct SearchValidationTests {
    let validator = SearchValidator(directory: try! AirportDirectory.bundled())
    /// 2026-11-22 12:00 UTC.
    let now = Date(timeIntervalSince1970: 1_795_348_800)

    func request(_ change: (inout SearchFlightsRequest) -> Void = { _ in }) -> SearchFlightsRequest {
        var request = SearchFlightsRequest()
        request.origin = "LIS"
        request.destination = "JFK"
        request.departureDate = CalendarDate(year: 2026, month: 12, day: 10)!.message
        request.adults = 1
        request.purpose = .userSearch
        change(&request)
        return request
    }

    @Test("a valid search becomes a query with upper-case codes and economy by default")
    func valid() throws {
        let search = try validator.validate(request { $0.origin = "lis"; $0.destination = "nyc" }, now: now)
        #expect(search.query.origin == "LIS" && search.query.destination == "NYC" && search.query.cabin == .economy)
    }

    /// One bad request per case: (field expected in the error, what is wrong).
    static let badRequests: [(String, String)] = [
        ("destination", "equals origin"), ("return_date", "before departure"), ("departure_date", "in the past"),
        ("departure_date", "not a real day"), ("departure_date", "missing"), ("adults", "zero"), ("adults", "ten"),
        ("children", "six"), ("infants", "three"), ("infants", "more than adults"), ("travellers", "ten in all"),
        ("flexible_days", "four"), ("purpose", "unspecified"), ("origin", "malformed"), ("max_price", "zero"),
    ]

    static func spoil(_ request: inout SearchFlightsRequest, _ fault: String) {
        switch fault {
        case "equals origin": request.destination = "LIS"
        case "before departure": request.returnDate = CalendarDate(year: 2026, month: 12, day: 9)!.message
        case "in the past": request.departureDate = CalendarDate(year: 2026, month: 11, day: 21)!.message
        case "not a real day": request.departureDate.month = 2; request.departureDate.day = 31
        case "missing": request.clearDepartureDate()
        case "zero": request.adults = 0
        case "ten": request.adults = 10
        case "six": request.children = 6
        case "three": request.infants = 3; request.adults = 3
        case "more than adults": request.infants = 2
        case "ten in all": request.adults = 5; request.children = 5
        case "four": request.flexibleDays = 4
        case "unspecified": request.purpose = .unspecified
        case "malformed": request.origin = "L1S"
        default: break
        }
    }

    @Test("each bad field is refused with invalid-field naming it", arguments: badRequests)
    func invalidField(field: String, fault: String) {
        var bad = request()
        if field == "max_price" { bad.maxPrice = Money() } else { Self.spoil(&bad, fault) }
        do {
            _ = try validator.validate(bad, now: now)
            Issue.record("accepted a request whose \(field) is \(fault)")
        } catch {
            #expect(error.code == "invalid-field")
            #expect(error.field == field)
            #expect(error.message.hasPrefix(field + ":"))
        }
    }

    @Test("an unknown code is unknown-airport, never a guess")
    func unknownAirport() {
        #expect(throws: SearchError.unknownAirport("ZZZ", field: "destination")) {
            try validator.validate(request { $0.destination = "ZZZ" }, now: now)
        }
    }

    @Test("'in the past' is judged in the origin's local date")
    func pastInOriginZone() throws {
        // 2026-11-22 09:30 UTC is still 2026-11-21 in Honolulu and already 22:30 on the 22nd in Auckland.
        let instant = Date(timeIntervalSince1970: 1_795_339_800)
        let yesterdayInUTC = CalendarDate(year: 2026, month: 11, day: 21)!.message
        #expect(throws: Never.self) { try validator.validate(request { $0.origin = "HNL"; $0.departureDate = yesterdayInUTC }, now: instant) }
        let refused = #expect(throws: SearchError.self) { try validator.validate(request { $0.origin = "AKL"; $0.departureDate = yesterdayInUTC }, now: instant) }
        #expect(refused?.code == "invalid-field" && refused?.field == "departure_date")
    }

    @Test("a flexible search shifts departure and return together by each of ±N days, never departing before today")
    func flexibleExpansion() throws {
        let search = try validator.validate(request {
            $0.departureDate = CalendarDate(year: 2026, month: 11, day: 23)!.message
            $0.returnDate = CalendarDate(year: 2026, month: 11, day: 24)!.message
            $0.flexibleDays = 1
        }, now: now)
        let pairs = search.expandedQueries(today: CalendarDate(year: 2026, month: 11, day: 22)!).map { "\($0.departureDate)/\($0.returnDate!)" }
        #expect(pairs == ["2026-11-22/2026-11-23", "2026-11-23/2026-11-24", "2026-11-24/2026-11-25"])
    }

    @Test("a ±3-day flexible search is at most 7 date pairs")
    func flexibleBound() throws {
        let search = try validator.validate(request {
            $0.departureDate = CalendarDate(year: 2026, month: 12, day: 10)!.message
            $0.returnDate = CalendarDate(year: 2026, month: 12, day: 20)!.message
            $0.flexibleDays = 3
        }, now: now)
        let queries = search.expandedQueries(today: CalendarDate(year: 2026, month: 11, day: 22)!)
        #expect(queries.count == 7)
        #expect(queries.allSatisfy { query in query.returnDate.map { $0.daysSinceEpoch - query.departureDate.daysSinceEpoch } == 10 })
        #expect(queries.map(\.departureDate.description).first == "2026-12-07" && queries.map(\.departureDate.description).last == "2026-12-13")
    }

    @Test("two codes in one city are not a route: refused as invalid-field naming destination", arguments: [
        ("LON", "LHR"), ("LHR", "LON"), ("LGW", "LHR"), ("JFK", "LGA"), ("NYC", "LGA"), ("DFW", "DAL"), ("HLA", "JNB"),
    ])
    func sameCity(origin: String, destination: String) {
        let refused = #expect(throws: SearchError.self) { try validator.validate(request { $0.origin = origin; $0.destination = destination }, now: now) }
        #expect(refused?.code == "invalid-field" && refused?.field == "destination")
        #expect(refused?.message.contains("\(destination) is in the same city as the origin \(origin)") == true, "\(refused?.message ?? "")")
    }

    @Test("airports of neighbouring cities and a metro to another city's airport are routes")
    func differentCities() {
        for (origin, destination) in [("LHR", "CDG"), ("LON", "JFK"), ("LGW", "NYC"), ("JFK", "BOS")] {
            #expect(throws: Never.self) { try validator.validate(request { $0.origin = origin; $0.destination = destination }, now: now) }
        }
    }

    @Test("a return more than 365 days ahead is refused as invalid-field naming return_date")
    func returnTooFarAhead() throws {
        let today = CalendarDate.of(now, in: .gmt)
        let departure = today.adding(days: 360).message
        #expect(throws: Never.self) { try validator.validate(request { $0.departureDate = departure; $0.returnDate = today.adding(days: 365).message }, now: now) }
        let refused = #expect(throws: SearchError.self) {
            try validator.validate(request { $0.departureDate = departure; $0.returnDate = Self.farFuture.message }, now: now)
        }
        #expect(refused?.code == "invalid-field" && refused?.field == "return_date")
        #expect(refused?.message == "return_date: 9999-12-31 is more than 365 days ahead")
    }

    static let farFuture = CalendarDate(year: 9999, month: 12, day: 31)!

    @Test("a flexible search near the horizon skips the shifts that would return after it")
    func flexibleAtHorizon() throws {
        let today = CalendarDate(year: 2026, month: 11, day: 22)!
        let search = try validator.validate(request {
            $0.departureDate = today.adding(days: 363).message
            $0.returnDate = today.adding(days: 364).message
            $0.flexibleDays = 3
        }, now: now)
        let returns = search.expandedQueries(today: today).compactMap { $0.returnDate.map { today.days(until: $0) } }
        #expect(returns == [361, 362, 363, 364, 365])
    }

    @Test("a price limit's currency is upper-cased, and must be an ISO 4217 code")
    func maxPriceCurrency() throws {
        let search = try validator.validate(request { $0.maxPrice = MoneyAmount.money(50_000, "gbp") }, now: now)
        #expect(search.maxPrice?.currency == "GBP")
        let refused = #expect(throws: SearchError.self) { try validator.validate(request { $0.maxPrice = MoneyAmount.money(50_000, "XYZ") }, now: now) }
        #expect(refused?.code == "invalid-field" && refused?.field == "max_price")
        #expect(refused?.message == "max_price: 'XYZ' is not an ISO 4217 currency code")
    }

    @Test("a departure more than 365 days ahead is refused as invalid-field naming departure_date")
    func tooFarAhead() throws {
        let today = CalendarDate.of(now, in: .gmt)
        #expect(throws: Never.self) { try validator.validate(request { $0.departureDate = today.adding(days: 365).message }, now: now) }
        let refused = #expect(throws: SearchError.self) { try validator.validate(request { $0.departureDate = today.adding(days: 366).message }, now: now) }
        #expect(refused?.code == "invalid-field" && refused?.field == "departure_date")
        #expect(refused?.message.contains("more than 365 days ahead") == true)
    }
}
