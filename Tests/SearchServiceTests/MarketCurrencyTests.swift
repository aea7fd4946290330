import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Simulated market prices in the currency of the origin's country")
struct MarketCurrencyTests {
    let check: MarketRuleCheck

    init() throws { check = try MarketRuleCheck() }

    func offers(_ market: SimulatedMarket, _ origin: String, _ destination: String, days: Int = 30, returnAfter: Int? = nil, cabin: Cabin = .economy) async throws -> [FlightOffer] {
        var query = FareQuery(origin: origin, destination: destination, departureDate: check.date(days), cabin: cabin)
        query.returnDate = returnAfter.map { check.date(days + $0) }
        return try await market.offers(for: query, deadline: nil)
    }

    /// A market with the same seed and clock that prices everything in euros, as the market did before currencies.
    func euroMarket(seed: UInt64 = 7) throws -> SimulatedMarket {
        let bundled = try check.market(seed: seed)
        let euroOnly = try MarketCurrencies(text: "currency,per_eur,countries\nEUR,1,\n", fallback: "EUR")
        return SimulatedMarket(
            directory: check.directory, pricing: bundled.pricing, airlines: check.airlines, currencies: euroOnly,
            seed: seed, clock: bundled.clock
        )
    }

    @Test("one-way trips are priced in the departure country's currency", arguments: [
        ("JFK", "LAX", "USD"), ("NYC", "ORL", "USD"), ("LHR", "EDI", "GBP"), ("LIS", "BCN", "EUR"),
        ("SYD", "MEL", "AUD"), ("YYZ", "YVR", "CAD"), ("ZRH", "LHR", "CHF"), ("EDI", "LHR", "GBP"),
    ])
    func departureCurrency(origin: String, destination: String, currency: String) async throws {
        let offers = try await offers(try check.market(), origin, destination)
        #expect(!offers.isEmpty)
        for offer in offers {
            #expect(offer.price.currency == currency, "\(origin)-\(destination): \(offer.price.currency)")
            #expect(offer.price.minorUnits > 0)
        }
    }

    @Test("Kolkata–Chennai is priced in whole rupees of a domestic-fare magnitude")
    func rupees() async throws {
        let offers = try await offers(try check.market(), "CCU", "MAA")
        #expect(!offers.isEmpty)
        #expect(Money.exponent(of: "INR") == 2)
        for offer in offers {
            #expect(offer.price.currency == "INR")
            #expect(offer.price.minorUnits % 100 == 0, "\(offer.price.formatted) has paise")
            // About 1,370 km one way: between ₹1,500 and ₹40,000.
            #expect(offer.price.minorUnits >= 150_000 && offer.price.minorUnits <= 4_000_000, "\(offer.price.formatted)")
        }
    }

    @Test("trips from Tokyo Narita are priced in yen, which has no minor unit", arguments: [("NRT", "CTS", 4_000 ... 120_000), ("NRT", "HKG", 15_000 ... 300_000)])
    func yen(origin: String, destination: String, range: ClosedRange<Int64>) async throws {
        #expect(Money.exponent(of: "JPY") == 0)
        let offers = try await offers(try check.market(), origin, destination)
        #expect(!offers.isEmpty)
        for offer in offers {
            #expect(offer.price.currency == "JPY")
            #expect(range.contains(offer.price.minorUnits), "\(origin)-\(destination): \(offer.price.formatted)")
        }
    }

    @Test("a round trip is priced in the outbound origin's currency, both ways round")
    func roundTrip() async throws {
        let market = try check.market()
        let fromLA = try await offers(market, "LAX", "LHR", returnAfter: 10)
        let fromLondon = try await offers(market, "LHR", "LAX", returnAfter: 10)
        #expect(!fromLA.isEmpty && !fromLondon.isEmpty)
        #expect(fromLA.allSatisfy { $0.hasInbound && $0.price.currency == "USD" })
        #expect(fromLondon.allSatisfy { $0.hasInbound && $0.price.currency == "GBP" })
    }

    @Test("the same route, dates, cabin, day and seed give the same price in the same currency")
    func deterministic() async throws {
        for (origin, destination) in [("CCU", "MAA"), ("NRT", "HKG"), ("KWI", "DXB"), ("JFK", "LAX")] {
            let first = try await offers(try check.market(seed: 11), origin, destination, returnAfter: 5, cabin: .business)
            let again = try await offers(try check.market(seed: 11), origin, destination, returnAfter: 5, cabin: .business)
            #expect(!first.isEmpty && first.map(\.price) == again.map(\.price), "\(origin)-\(destination)")
        }
    }

    @Test("converted back to euros with the same table, every price is the euro price within rounding (calibration kept)", arguments: [
        ("JFK", "LAX", Cabin.economy, nil as Int?), ("LHR", "EDI", .economy, nil), ("CCU", "MAA", .economy, 7), ("NRT", "HKG", .business, nil),
        ("KWI", "DXB", .economy, nil), ("SFO", "NRT", .first, 14), ("LIS", "BCN", .economy, 3), ("GRU", "EZE", .economy, nil), ("CGK", "SIN", .economy, nil),
    ])
    func calibrationKept(origin: String, destination: String, cabin: Cabin, returnAfter: Int?) async throws {
        let market = try check.market()
        let converted = try await offers(market, origin, destination, returnAfter: returnAfter, cabin: cabin)
        let euros = try await offers(try euroMarket(), origin, destination, returnAfter: returnAfter, cabin: cabin)
        #expect(!converted.isEmpty && converted.count == euros.count)
        // The first offer is the cheapest plan sold by the airline at no markup: the model's own euro price, from MarketPricing directly.
        let (from, to) = (try #require(check.directory.airport(origin)), try #require(check.directory.airport(destination)))
        let today = CalendarDate.of(market.clock(), in: TimeZones.zone(from.timeZone))
        var model = Double(market.pricing.cheapestCents(from: from, to: to, departure: check.date(30), today: today))
        if let returnAfter { model += Double(market.pricing.cheapestCents(from: to, to: from, departure: check.date(30 + returnAfter), today: today)) }
        model *= CabinPricing.factor(cabin, kilometres: from.kilometers(to: to))
        #expect(converted.first?.provider == "simulated-airline" && euros.first?.price.minorUnits == Int64(model.rounded()))
        for (offer, euro) in zip(converted, euros) {
            #expect(euro.price.currency == "EUR" && offer.provider == euro.provider && offer.flightNumbers == euro.flightNumbers)
            let currency = try #require(market.currencies.currency(code: offer.price.currency))
            let back = try #require(market.currencies.euroCents(of: offer.price))
            // Half a rounding step of the currency, in euro cents, plus the half cent of the euro price's own rounding.
            let step = currency.roundsToWholeUnits ? currency.minorPerUnit : 1
            let tolerance = step / currency.minorPerUnit / currency.perEuro * 100 / 2 + 0.5 + 1e-6
            #expect(abs(back - Double(euro.price.minorUnits)) <= tolerance, "\(origin)-\(destination): \(offer.price.formatted) ≈ \(back) euro cents, euro market \(euro.price.minorUnits)")
        }
    }

    @Test("over 300 random routes, one way and return, every offer is in its origin country's currency and rounded as a price")
    func randomRoutes() async throws {
        let market = try check.market()
        let popular = check.directory.airports.values.filter(\.popular).map(\.code).sorted()
        let all = check.directory.airports.keys.sorted()
        let random = StableRandom(seed: 1313)
        var currencies: Set<String> = []
        var priced = 0
        for index in 0..<300 {
            let codes = index % 3 == 2 ? all : popular
            let origin = codes[random.int("o\(index)", in: 0 ... codes.count - 1)]
            let destination = codes[random.int("d\(index)", in: 0 ... codes.count - 1)]
            guard origin != destination else { continue }
            let airport = try #require(check.directory.airport(origin))
            let expected = market.currencies.currency(ofCountry: airport.country)
            #expect(market.currencies.lists(country: airport.country) || expected.code == "USD")
            for offer in try await offers(market, origin, destination, days: 3 + index % 80, returnAfter: index % 2 == 0 ? nil : 4) {
                priced += 1
                currencies.insert(offer.price.currency)
                #expect(offer.outbound.segments.first?.fromAirport == origin)
                #expect(offer.price.currency == expected.code, "\(origin) (\(airport.country))-\(destination): \(offer.price.currency)")
                #expect(offer.price.minorUnits > 0)
                if expected.roundsToWholeUnits {
                    #expect(offer.price.minorUnits % Int64(expected.minorPerUnit) == 0, "\(offer.price.formatted) not whole")
                }
            }
        }
        #expect(priced > 500 && currencies.count >= 10, "\(priced) offers in \(currencies.sorted())")
    }
}
