import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Simulated market")
struct SimulatedMarketTests {
    let directory = try! AirportDirectory.bundled()
    let start = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22

    func market(seed: UInt64 = 7, clock: ManualWallClock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))) throws -> SimulatedMarket {
        try SimulatedMarket(directory: directory, seed: seed, clock: { clock.now() })
    }

    func query(_ origin: String, _ destination: String, days: Int = 30, change: (inout FareQuery) -> Void = { _ in }) -> FareQuery {
        var query = FareQuery(origin: origin, destination: destination, departureDate: CalendarDate.of(start, in: .gmt).adding(days: days))
        change(&query)
        return query
    }

    @Test("over two years of daily observations a route's simulated median and minimum land near the real ones")
    func calibration() throws {
        let pricing = try market().pricing
        let (paris, milan) = (directory.airport("CDG")!, directory.airport("MXP")!)
        let real = try #require(pricing.fares.fare(from: paris, to: milan))
        #expect(real.medianCents == 3000 && real.minimumCents == 1300)  // routes-top.csv: Paris–Milan 30.00 / 13.00 EUR
        let today = CalendarDate.of(start, in: .gmt)
        var prices: [Int64] = []
        for day in 0..<730 {
            let seen = today.adding(days: day)
            let lead = (day * 37) % 91
            prices.append(pricing.cheapestCents(from: paris, to: milan, departure: seen.adding(days: lead), today: seen))
        }
        prices.sort()
        let median = Double(prices[prices.count / 2])
        #expect(abs(median - 3000) / 3000 < 0.15, "simulated median \(median) vs real 3000")
        #expect(prices[0] >= 1300 && Double(prices[0]) <= 1300 * 1.1, "simulated minimum \(prices[0]) vs real 1300")
    }

    @Test("departures close to today cost more than those a month or so out, following the real booking-window curve")
    func bookingWindow() throws {
        let pricing = try market().pricing
        let (lisbon, london) = (directory.airport("LIS")!, directory.airport("LHR")!)
        func average(lead: Int) -> Double {
            let today = CalendarDate.of(start, in: .gmt)
            let prices = (0..<300).map { day in
                pricing.cheapestCents(from: lisbon, to: london, departure: today.adding(days: day + lead), today: today.adding(days: day))
            }
            return Double(prices.reduce(0, +)) / Double(prices.count)
        }
        #expect(average(lead: 2) > average(lead: 40) * 1.08)
        #expect(pricing.window.factor(daysAhead: 2) > pricing.window.factor(daysAhead: 40))
    }

    @Test("the same seed gives the same offers; another seed gives other prices")
    func deterministic() async throws {
        let first = try await market(seed: 7).offers(for: query("LIS", "JFK"))
        let again = try await market(seed: 7).offers(for: query("LIS", "JFK"))
        let other = try await market(seed: 8).offers(for: query("LIS", "JFK"))
        #expect(first == again)
        #expect(first.map(\.price) != other.map(\.price))
    }

    @Test("every offer says it is simulated and links only to the reserved .invalid domain")
    func labelled() async throws {
        let offers = try await market().offers(for: query("LIS", "NYC") { $0.returnDate = $0.departureDate.adding(days: 7) })
        #expect(!offers.isEmpty)
        for offer in offers {
            #expect(offer.simulated && offer.provider.hasPrefix("simulated-"))
            #expect(URL(string: offer.bookingLink)?.host?.hasSuffix(".invalid") == true)
            #expect(offer.hasInbound && offer.price.currency == "EUR" && offer.price.minorUnits > 0)
        }
    }

    @Test("segments chain in time with local times in each airport's zone")
    func localTimes() async throws {
        for offer in try await market().offers(for: query("LHR", "JFK")) {
            let segments = offer.outbound.segments
            #expect(segments.first?.fromAirport == "LHR" && segments.last?.toAirport == "JFK")
            #expect(segments.first?.departureTimeZone == "Europe/London" && segments.last?.arrivalTimeZone == "America/New_York")
            for segment in segments {
                let departure = try #require(LocalClock.instant(local: segment.departureLocal, zone: segment.departureTimeZone))
                let arrival = try #require(LocalClock.instant(local: segment.arrivalLocal, zone: segment.arrivalTimeZone))
                #expect(Int(arrival - departure) == Int(segment.durationMinutes) * 60)
            }
            #expect(offer.outbound.stops == Int32(segments.count - 1))
        }
    }

    @Test("nonstop-only searches get only nonstop itineraries")
    func nonstopOnly() async throws {
        let offers = try await market().offers(for: query("LIS", "HEL") { $0.nonstopOnly = true })
        #expect(!offers.isEmpty && offers.allSatisfy { $0.outbound.stops == 0 })
    }

    @Test("a route without observed fares is priced by the distance model fitted to the real ones")
    func distanceModel() throws {
        let pricing = try market().pricing
        let (a, b) = (directory.airport("ASE")!, directory.airport("BZN")!)
        #expect(pricing.fares.fare(from: a, to: b) == nil)
        #expect(pricing.distance.slope > 0)
        let level = pricing.level(from: a, to: b)
        #expect(level.medianCents > level.minimumCents && level.minimumCents > 0 && level.observations == 0)
    }
}
