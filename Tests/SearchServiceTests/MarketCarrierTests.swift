import FareLensMessages
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

@Suite("Simulated market carriers")
struct MarketCarrierTests {
    let check: MarketRuleCheck

    init() throws { check = try MarketRuleCheck() }

    func offers(_ origin: String, _ destination: String, days: Int = 30, seed: UInt64 = 7, change: (inout FareQuery) -> Void = { _ in }) async throws -> [FlightOffer] {
        var query = FareQuery(origin: origin, destination: destination, departureDate: check.date(days))
        change(&query)
        return try await check.market(seed: seed).offers(for: query, deadline: nil)
    }

    @Test("Lisbon–London nonstops are flown only by Portuguese or British carriers, on many dates and seeds")
    func lisbonLondon() async throws {
        var nonstopCarriers: Set<String> = []
        for seed: UInt64 in [1, 7, 42] {
            for days in stride(from: 3, through: 90, by: 9) {
                for destination in ["LON", "LHR", "LGW"] {
                    let found = try await offers("LIS", destination, days: days, seed: seed)
                    #expect(!found.isEmpty)
                    for offer in found where offer.outbound.stops == 0 {
                        nonstopCarriers.insert(offer.carrier)
                        let countries = try #require(check.airlines.airline(offer.carrier)).countries
                        #expect(countries.contains("PT") || countries.contains("GB"), "LIS-\(destination) nonstop by \(offer.carrier)")
                    }
                    for offer in found { #expect(check.violations(offer).isEmpty, "\(check.violations(offer))") }
                }
            }
        }
        #expect(!nonstopCarriers.isEmpty)
        #expect(nonstopCarriers.isDisjoint(with: ["DL", "UA", "QR", "AA", "EK", "W6"]))
    }

    @Test("New York–Los Angeles is sold only by US carriers, nonstop or one stop")
    func newYorkLosAngeles() async throws {
        for (origin, destination) in [("JFK", "LAX"), ("NYC", "LAX"), ("LAX", "NYC")] {
            for days in [2, 14, 45, 80] {
                let found = try await offers(origin, destination, days: days) { $0.returnDate = check.date(days + 5) }
                #expect(!found.isEmpty)
                for offer in found {
                    #expect(check.airlines.airline(offer.carrier)?.countries == ["US"], "\(origin)-\(destination) by \(offer.carrier)")
                    #expect(check.violations(offer).isEmpty, "\(check.violations(offer))")
                }
            }
        }
    }

    @Test("San Francisco–Tokyo has no low-cost carrier in any cabin, and only carriers of the US or Japan fly it nonstop")
    func sanFranciscoTokyo() async throws {
        for destination in ["NRT", "TYO", "HND"] {
            for cabin in [Cabin.economy, .premiumEconomy, .business, .first] {
                let found = try await offers("SFO", destination) { $0.cabin = cabin }
                #expect(!found.isEmpty, "SFO-\(destination) \(cabin)")
                for offer in found {
                    let airline = try #require(check.airlines.airline(offer.carrier))
                    #expect(airline.kind != .lowCost, "SFO-\(destination) by \(offer.carrier)")
                    if offer.outbound.stops == 0 { #expect(airline.countries == ["US"] || airline.countries == ["JP"]) }
                    #expect(check.violations(offer).isEmpty, "\(check.violations(offer))")
                }
            }
        }
    }

    @Test("a one-stop itinerary connects at a hub of the carrier that sells it")
    func oneStopsAtOwnHub() async throws {
        var oneStops = 0
        for (origin, destination) in [("OPO", "JFK"), ("LIS", "BKK"), ("LON", "SYD"), ("MAD", "NRT"), ("EDI", "LAX"), ("VNO", "TLL")] {
            for offer in try await offers(origin, destination) where offer.outbound.stops == 1 {
                oneStops += 1
                let hub = offer.outbound.segments[0].toAirport
                #expect(check.airlines.airline(offer.carrier)?.hubs.contains(hub) == true, "\(origin)-\(destination) by \(offer.carrier) via \(hub)")
            }
        }
        #expect(oneStops > 5)
    }

    @Test("200 random pairs of popular airports, in every cabin, one way and return: every offer keeps the carrier rules")
    func randomPopularPairs() async throws {
        let popular = check.directory.airports.values.filter(\.popular).map(\.code).sorted()
        let random = StableRandom(seed: 2026)
        let market = try check.market()
        var searches = 0, answered = 0, checkedOffers = 0
        for index in 0..<200 {
            let origin = popular[random.int("o\(index)", in: 0 ... popular.count - 1)]
            let destination = popular[random.int("d\(index)", in: 0 ... popular.count - 1)]
            guard origin != destination else { continue }
            let cabin = [Cabin.economy, .premiumEconomy, .business, .first][index % 4]
            var query = FareQuery(origin: origin, destination: destination, departureDate: check.date(1 + index % 90), cabin: cabin)
            if index % 3 == 0 { query.returnDate = query.departureDate.adding(days: 7) }
            let found = try await market.offers(for: query, deadline: nil)
            searches += 1
            if !found.isEmpty { answered += 1 }
            for offer in found {
                checkedOffers += 1
                #expect(check.violations(offer).isEmpty, "\(query): \(check.violations(offer))")
                #expect(offer.cabin == cabin)
            }
        }
        // Economy and business are sold almost everywhere between popular airports.
        #expect(answered * 10 >= searches * 6, "\(answered) of \(searches) searches answered")
        #expect(checkedOffers > 1_000)
    }

    @Test("200 random pairs of any known airports: every offer keeps the carrier rules, and tiny fields may get none")
    func randomAnyPairs() async throws {
        let codes = check.directory.airports.keys.sorted()
        let random = StableRandom(seed: 99)
        let market = try check.market()
        var checkedOffers = 0
        for index in 0..<200 {
            let origin = codes[random.int("o\(index)", in: 0 ... codes.count - 1)]
            let destination = codes[random.int("d\(index)", in: 0 ... codes.count - 1)]
            guard origin != destination else { continue }
            for offer in try await market.offers(for: FareQuery(origin: origin, destination: destination, departureDate: check.date(20)), deadline: nil) {
                checkedOffers += 1
                #expect(check.violations(offer).isEmpty, "\(origin)-\(destination): \(check.violations(offer))")
            }
        }
        #expect(checkedOffers > 100)
    }

    @Test("a domestic route is sold only by carriers of that country")
    func domestic() async throws {
        for (origin, destination, country) in [("ASE", "BZN", "US"), ("BOS", "SEA", "US"), ("MAD", "BCN", "ES"), ("HND", "CTS", "JP"), ("MUC", "HAM", "DE")] {
            let found = try await offers(origin, destination)
            #expect(!found.isEmpty, "\(origin)-\(destination)")
            for offer in found {
                #expect(check.airlines.airline(offer.carrier)?.countries.contains(country) == true, "\(origin)-\(destination) by \(offer.carrier)")
            }
        }
    }

    @Test("a metro search flies from the metro's main hub airport")
    func metroAirport() async throws {
        for (code, airport) in [("LON", "LHR"), ("TYO", "HND"), ("ROM", "FCO"), ("IST", "IST")] {
            let found = try await offers(code, "JFK")
            #expect(!found.isEmpty && found.allSatisfy { $0.outbound.segments.first?.fromAirport == airport }, "\(code)")
        }
    }
}
