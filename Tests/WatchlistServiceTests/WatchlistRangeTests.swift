import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import WatchlistService

/// Flexible watchlists with a date range (issue #60): the trips a range
/// holds, the bounded share one check scans (the tier's
/// `flexible_date_pairs`, the next ones at the next check), the cheapest
/// trip reported with every trip asked.
@Suite("Watchlists: flexible dates within a range")
struct WatchlistRangeTests {
    static func day(_ text: String) -> CalendarDate { CalendarDate(iso: text)! }  // safe: literals of this file

    /// A one-way watchlist for `user` departing any day from `first` to `last` (ISO dates).
    static func oneWayRange(_ user: String, _ first: String, _ last: String) -> CreateWatchlistRequest {
        addRequest(user) { request in
            request.dates.flexible = FlexibleDates()
            request.dates.flexible.earliestDeparture = day(first).message
            request.dates.flexible.latestReturn = day(last).message
        }
    }

    /// "Check now" for `user`'s watchlist `id`.
    static func checkRequest(_ user: String, _ id: String) -> CheckWatchlistNowRequest {
        var check = CheckWatchlistNowRequest()
        check.userID = user
        check.watchlistID = id
        return check
    }

    @Test("a range's trips: every departure from the later of its start and today, each length within min–max, back by its end")
    func candidates() {
        let today = Self.day("2027-03-04")
        let trips = DatePairs.candidates(from: Self.day("2027-03-01"), to: Self.day("2027-03-20"), minNights: 5, maxNights: 9, weekendsOnly: false, today: today)
        #expect(trips.first == DatePair(departure: today, returning: today.adding(days: 5)))
        #expect(trips.allSatisfy { $0.departure >= today && (5 ... 9).contains($0.nights) && $0.returning! <= Self.day("2027-03-20") })
        // Departures 03-04 … 03-15: up to 03-11 all five lengths fit, then 4, 3, 2, 1: 8 × 5 + 10 = 50.
        #expect(trips.count == 50)
        #expect(Set(trips.map { "\($0.departure)/\($0.nights)" }).count == trips.count, "no trip twice")
        let oneWay = DatePairs.candidates(from: Self.day("2027-03-01"), to: Self.day("2027-03-10"), minNights: 0, maxNights: 0, weekendsOnly: false, today: today)
        #expect(oneWay.count == 7 && oneWay.allSatisfy { $0.returning == nil })
    }

    @Test("weekends only: out on a Friday or Saturday, back on the Sunday or Monday after, within the length when one is given")
    func weekends() {
        // March 2027: Fridays 5, 12, 19, 26.
        let all = DatePairs.candidates(from: Self.day("2027-03-01"), to: Self.day("2027-03-31"), minNights: 0, maxNights: 0, weekendsOnly: true, today: Self.day("2027-01-01"))
        #expect(all.allSatisfy { [.friday, .saturday].contains(DatePairs.weekday($0.departure)) })
        #expect(all.allSatisfy { [.sunday, .monday].contains(DatePairs.weekday($0.returning!)) && (1 ... 3).contains($0.nights) })
        #expect(all.count == 16, "four weekends, four trips each (Fri–Sun, Fri–Mon, Sat–Sun, Sat–Mon)")
        #expect(all.first == DatePair(departure: Self.day("2027-03-05"), returning: Self.day("2027-03-07")))
        let twoNights = DatePairs.candidates(from: Self.day("2027-03-01"), to: Self.day("2027-03-31"), minNights: 2, maxNights: 2, weekendsOnly: true, today: Self.day("2027-01-01"))
        #expect(twoNights.count == 8 && twoNights.allSatisfy { $0.nights == 2 })
        #expect(DatePairs.weekday(Self.day("1970-01-01")) == .thursday && DatePairs.weekday(Self.day("2026-09-21")) == .monday)
    }

    @Test("successive checks scan the range in turn: every trip within ⌈trips ÷ limit⌉ checks, none twice before all once", arguments: [(31, 8), (60, 60), (61, 60), (7, 8), (100, 1)])
    func turns(count: Int, limit: Int) {
        let start = Self.day("2027-03-01")
        let trips = (0 ..< count).map { DatePair(departure: start.adding(days: $0), returning: nil) }
        var cursor = 0
        var seen: [DatePair] = []
        for _ in 0 ..< (count + limit - 1) / limit {
            let scanned = DatePairs.scanned(trips, limit: limit, cursor: cursor)
            #expect(scanned.count == min(count, limit))
            seen += scanned
            cursor = DatePairs.nextCursor(after: cursor, count: count, limit: limit)
        }
        #expect(Set(seen.map(\.departure)) == Set(trips.map(\.departure)))
        #expect(Set(seen.prefix(count).map(\.departure)).count == min(count, seen.count))
    }

    @Test("a range is refused with the field it is wrong in: half given, reversed, past, too long, weekends without one, a weekend of 4 nights, no trip in it")
    func refusals() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            func refused(_ adjust: @escaping (inout FlexibleDates) -> Void) async -> (String?, String?) {
                do {
                    _ = try await fixture.watchlists.create(addRequest(user) { adjust(&$0.dates.flexible) })
                    return (nil, nil)
                } catch {
                    return (error.code, error.field)
                }
            }
            // The fixture's today is 2026-09-21 in New York.
            let cases: [(String, (inout FlexibleDates) -> Void)] = [
                ("dates.flexible.latest_return", { $0.earliestDeparture = Self.day("2026-10-01").message }),
                ("dates.flexible.earliest_departure", { $0.latestReturn = Self.day("2026-10-01").message }),
                ("dates.flexible.latest_return", { $0.earliestDeparture = Self.day("2026-11-01").message; $0.latestReturn = Self.day("2026-10-01").message }),
                ("dates.flexible.latest_return", { $0.earliestDeparture = Self.day("2026-08-01").message; $0.latestReturn = Self.day("2026-09-01").message }),
                ("dates.flexible.latest_return", { $0.earliestDeparture = Self.day("2026-09-22").message; $0.latestReturn = Self.day("2027-09-30").message }),
                ("dates.flexible.weekends_only", { $0.weekendsOnly = true }),
                ("dates.flexible.min_trip_days", { $0.earliestDeparture = Self.day("2026-10-01").message; $0.latestReturn = Self.day("2026-10-31").message; $0.weekendsOnly = true }),
                ("dates.flexible.latest_return", { $0.earliestDeparture = Self.day("2026-10-01").message; $0.latestReturn = Self.day("2026-10-05").message }),
                ("dates.flexible.earliest_departure", { $0.earliestDeparture.month = 13; $0.latestReturn = Self.day("2026-10-05").message }),
            ]
            for (field, adjust) in cases {
                let (code, named) = await refused(adjust)
                #expect(code == "invalid-field" && named == field, "\(field): \(code ?? "accepted") \(named ?? "")")
            }
            #expect(try fixture.rows(user).isEmpty)
        }
    }

    @Test("a Free check scans 8 of the range's 31 trips, each a search of its own for that trip with the watchlist's purpose; the cheapest is the price; the next check scans the next 8", arguments: MeshShape.allCases)
    func freeScan(shape: MeshShape) async throws {
        let holder = WatchlistCurrencyTests.Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            holder.fixture.set(try WatchlistFixture(bus: server, watchlistBus: client))
        } body: { _ in
            let fixture = try #require(holder.fixture.get())
            try await fixture.running {
                let user = try await fixture.user(tier: .free)
                // October 2026, one-way: 31 trips.
                let created = try await fixture.watchlists.create(Self.oneWayRange(user, "2026-10-01", "2026-10-31")).watchlist
                #expect(created.dates.flexible.earliestDeparture == Self.day("2026-10-01").message)
                fixture.search.setPrice("JFK-NRT", 50_000)
                fixture.search.tripPrices.set(["2026-10-06/": 41_000, "2026-10-12/": 39_000])
                let check = Self.checkRequest(user, created.watchlistID)

                let first = try await fixture.watchlists.checkNow(check).watchlist.lastCheck
                let asked = fixture.search.requests.get()
                #expect(asked.count == 8)
                #expect(asked.allSatisfy { $0.purpose == .freeWatchlist && $0.flexibleDays == 0 && !$0.hasReturnDate })
                #expect(asked.map { CalendarDate($0.departureDate)!.description } == (1 ... 8).map { String(format: "2026-10-%02d", $0) })
                #expect(first.lowestPrice == usd(41_000) && first.departureDate == Self.day("2026-10-06").message)
                #expect(first.scannedPairs.count == 8 && first.rangePairs == 31)
                #expect(first.scannedPairs.allSatisfy { $0.hasLowestPrice && $0.failure.isEmpty })

                fixture.search.requests.set([])
                let second = try await fixture.watchlists.checkNow(check).watchlist.lastCheck
                #expect(fixture.search.requests.get().map { CalendarDate($0.departureDate)!.description } == (9 ... 16).map { String(format: "2026-10-%02d", $0) })
                #expect(second.lowestPrice == usd(39_000) && second.departureDate == Self.day("2026-10-12").message)
            }
        }
    }

    @Test("a trial user's check scans up to 60 trips; a trip search has no fares for is reported with its code, and the rest still price the check")
    func trialScanWithGaps() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(addRequest(user) { request in
                request.dates.flexible.minTripDays = 5
                request.dates.flexible.maxTripDays = 9
                request.dates.flexible.earliestDeparture = Self.day("2026-11-01").message
                request.dates.flexible.latestReturn = Self.day("2026-11-30").message
            }).watchlist.watchlistID
            // No route price: only the trips given one have fares.
            fixture.search.tripPrices.set(["2026-11-03/2026-11-10": 70_000, "2026-11-04/2026-11-09": 65_000])
            let check = Self.checkRequest(user, id)
            let result = try await fixture.watchlists.checkNow(check).watchlist.lastCheck
            #expect(result.scannedPairs.count == 60 && result.rangePairs > 60)
            #expect(result.lowestPrice == usd(65_000))
            #expect(result.departureDate == Self.day("2026-11-04").message && result.returnDate == Self.day("2026-11-09").message)
            #expect(result.scannedPairs.filter(\.hasLowestPrice).count == 2)
            #expect(result.scannedPairs.filter { !$0.hasLowestPrice }.allSatisfy { $0.failure == "no-fares-available" })
            let nights = fixture.search.requests.get().map { CalendarDate($0.departureDate)!.days(until: CalendarDate($0.returnDate)!) }
            #expect(nights.allSatisfy { (5 ... 9).contains($0) } && fixture.search.requests.get().allSatisfy { $0.purpose == .proWatchlist })
        }
    }

    @Test("when no trip scanned has a fare the check records nothing and says no-fares-available")
    func noFares() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user()
            let id = try await fixture.watchlists.create(Self.oneWayRange(user, "2026-10-01", "2026-10-03")).watchlist.watchlistID
            let check = Self.checkRequest(user, id)
            let error = await #expect(throws: WatchlistError.self) { try await fixture.watchlists.checkNow(check) }
            #expect(error?.code == "no-fares-available", "\(String(describing: error))")
            #expect(try fixture.rows(user).first?.lastPriceMinorUnits == nil)
        }
    }

    @Test("a check whose trips all had no fares records nothing but moves the scan on: the next check asks the next trips and finds the fare there")
    func emptyTripsMoveOn() async throws {
        let fixture = try WatchlistFixture(bus: MessageBus())
        try await fixture.running {
            let user = try await fixture.user(tier: .free)
            let id = try await fixture.watchlists.create(Self.oneWayRange(user, "2026-10-01", "2026-10-31")).watchlist.watchlistID
            // Only the 10th trip has a fare; a Free check scans 8.
            fixture.search.tripPrices.set(["2026-10-10/": 44_000])
            let check = Self.checkRequest(user, id)
            let error = await #expect(throws: WatchlistError.self) { try await fixture.watchlists.checkNow(check) }
            #expect(error?.code == "no-fares-available")
            #expect(try fixture.rows(user).first?.lastPriceMinorUnits == nil && fixture.rows(user).first?.pairCursor == 8)
            let found = try await fixture.watchlists.checkNow(check).watchlist.lastCheck
            #expect(found.lowestPrice == usd(44_000) && found.departureDate == Self.day("2026-10-10").message)
        }
    }
}

