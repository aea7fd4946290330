import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Simulated market price levels and cabins")
struct MarketPriceLevelTests {
    let check: MarketRuleCheck

    init() throws { check = try MarketRuleCheck() }

    /// The cheapest offer of one search, in cents.
    func cheapest(_ market: SimulatedMarket, _ origin: String, _ destination: String, cabin: Cabin = .economy, on date: CalendarDate) async throws -> Int64? {
        let query = FareQuery(origin: origin, destination: destination, departureDate: date, cabin: cabin)
        return try await market.offers(for: query, deadline: nil).map(\.price.minorUnits).min()
    }

    /// Observed routes of at least `kilometres` whose fare is plausible, with both codes known.
    func observedRoutes(longerThan kilometres: Double, pricing: MarketPricing) -> [(origin: String, destination: String, distance: Double, fare: RouteFareTable.Fare)] {
        pricing.fares.all.compactMap { key, fare in
            let codes = key.split(separator: "-").map(String.init)
            guard codes.count == 2, let a = check.directory.representative(of: codes[0]), let b = check.directory.representative(of: codes[1]) else { return nil }
            let distance = a.kilometers(to: b)
            guard distance >= kilometres, MarketPricing.isPlausible(fare, kilometres: distance) else { return nil }
            return (codes[0], codes[1], distance, fare)
        }.sorted { $0.origin + $0.destination < $1.origin + $1.destination }
    }

    @Test("San Francisco–Tokyo business costs at least 3× economy on the same date, first more than business")
    func longHaulCabins() async throws {
        let market = try check.market()
        for days in [5, 30, 60] {
            let date = check.date(days)
            let economy = try #require(try await cheapest(market, "SFO", "NRT", on: date))
            let business = try #require(try await cheapest(market, "SFO", "NRT", cabin: .business, on: date))
            let first = try #require(try await cheapest(market, "SFO", "NRT", cabin: .first, on: date))
            #expect(business >= 3 * economy, "economy \(economy), business \(business)")
            #expect(first > business)
        }
    }

    @Test("short-haul business is about 2.5× economy and the ratios are documented per haul")
    func shortHaulCabins() async throws {
        #expect(CabinPricing.factor(.business, kilometres: 1_500) == 2.5)
        #expect(CabinPricing.factor(.business, kilometres: 9_000) == 4.5)
        #expect(CabinPricing.factor(.premiumEconomy, kilometres: 9_000) == 1.7)
        #expect(CabinPricing.factor(.first, kilometres: 9_000) == 8.5)
        let market = try check.market()
        let date = check.date(30)
        let economy = try #require(try await cheapest(market, "LIS", "LHR", on: date))
        let business = try #require(try await cheapest(market, "LIS", "LHR", cabin: .business, on: date))
        #expect(Double(business) >= 2 * Double(economy) && Double(business) <= 3 * Double(economy), "economy \(economy), business \(business)")
    }

    @Test("a cabin nobody sells on a route gets no offers rather than absurd ones")
    func unsoldCabins() async throws {
        let market = try check.market()
        // Premium economy and first are long-haul products; Lisbon–London is short-haul.
        for cabin in [Cabin.premiumEconomy, .first] {
            #expect(try await market.offers(for: FareQuery(origin: "LIS", destination: "LON", departureDate: check.date(20), cabin: cabin), deadline: nil).isEmpty)
        }
        // Business is sold there, but never by a low-cost carrier.
        let business = try await market.offers(for: FareQuery(origin: "LIS", destination: "LON", departureDate: check.date(20), cabin: .business), deadline: nil)
        #expect(!business.isEmpty && business.allSatisfy { check.airlines.airline($0.carrier)?.kind != .lowCost })
    }

    @Test("on every long-haul route of the real data, the simulated economy median at a 30-day booking window, in euros, is 0.6–1.6× the observed median")
    func longHaulObservedLevels() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))
        let market = try SimulatedMarket(directory: check.directory, seed: 7, clock: { clock.now() })
        let routes = observedRoutes(longerThan: 4_000, pricing: market.pricing)
        #expect(routes.count > 300)
        // A typical booking window: departures 30 days after each of 15 observation days, 3 days apart.
        // Offers are in the origin country's currency; compare in euro cents, converted back with the market's table.
        var prices: [Int: [Double]] = [:]
        for _ in 0..<15 {
            let date = CalendarDate.of(clock.now(), in: .gmt).adding(days: 30)
            for (index, route) in routes.enumerated() {
                let query = FareQuery(origin: route.origin, destination: route.destination, departureDate: date)
                let offers = try await market.offers(for: query, deadline: nil)
                if let price = offers.compactMap({ market.currencies.euroCents(of: $0.price) }).min() { prices[index, default: []].append(price) }
            }
            clock.advance(by: 3 * 86_400)
        }
        var priced = 0
        for (index, route) in routes.enumerated() {
            guard let seen = prices[index]?.sorted() else { continue }
            priced += 1
            let ratio = seen[seen.count / 2] / Double(route.fare.medianCents)
            #expect(ratio >= 0.6 && ratio <= 1.6, "\(route.origin)-\(route.destination) (\(Int(route.distance)) km): simulated/observed median \(ratio)")
        }
        // Nearly every long-haul route of the data has a plausible carrier.
        #expect(priced * 10 >= routes.count * 9, "\(priced) of \(routes.count) long-haul routes priced")
    }

    @Test("the distance model, used where the data has no route, predicts the real long-haul medians within 0.6–1.6× on most routes")
    func distanceModelOnLongHaul() throws {
        let pricing = try check.market().pricing
        let routes = observedRoutes(longerThan: 4_000, pricing: pricing)
        let ratios = routes.map { Double(pricing.distance.fare(kilometers: $0.distance).medianCents) / Double($0.fare.medianCents) }.sorted()
        let median = ratios[ratios.count / 2]
        #expect(median >= 0.8 && median <= 1.25, "median model/observed \(median)")
        let within = ratios.filter { $0 >= 0.6 && $0 <= 1.6 }.count
        #expect(within * 100 >= ratios.count * 80, "\(within) of \(ratios.count) within 0.6–1.6×")
    }

    @Test("long-haul routes absent from the data are priced at 2.5–8 euro cents per km one way, economy")
    func absentLongHaulPerKilometre() throws {
        let pricing = try check.market().pricing
        let pairs = [("SFO", "NRT"), ("LIS", "SYD"), ("JNB", "GRU"), ("AKL", "DXB"), ("YVR", "ICN"), ("MEX", "MAD"), ("CPT", "SIN")]
        for (a, b) in pairs {
            let (origin, destination) = (try #require(check.directory.airport(a)), try #require(check.directory.airport(b)))
            #expect(pricing.fares.fare(from: origin, to: destination) == nil, "\(a)-\(b) is in the data")
            let kilometres = origin.kilometers(to: destination)
            #expect(kilometres >= 4_000)
            let perKilometre = Double(pricing.level(from: origin, to: destination).medianCents) / kilometres
            #expect(perKilometre >= 2.5 && perKilometre <= 8, "\(a)-\(b): \(perKilometre) cents/km")
        }
    }

    @Test("an observed long route cheaper than 1.5 cents per km (a city mapped to the wrong airport) is priced by distance instead")
    func implausibleObservation() throws {
        let pricing = try check.market().pricing
        let (paris, venice) = (try #require(check.directory.airport("CDG")), try #require(check.directory.airport("VNC")))
        let observed = try #require(pricing.fares.fare(from: paris, to: venice))
        #expect(observed.medianCents == 3300)  // route-fares.csv: PAR-VNC, "Venice" mapped to Venice, Florida
        let level = pricing.level(from: paris, to: venice)
        #expect(level.observations == 0 && Double(level.medianCents) >= 1.5 * paris.kilometers(to: venice))
    }
}
