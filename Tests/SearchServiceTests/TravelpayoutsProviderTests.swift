import Configuration
import FareLensMessages
import FareLensTesting
import Foundation
import SearchService
import Testing

@Suite("Travelpayouts cached prices over HTTP")
struct TravelpayoutsProviderTests {
    @Test("cached prices become offers: per-person price times travellers, arrival computed in the destination's zone")
    func mapsTickets() async throws {
        let offers = try await withStubServer { server, baseURL in
            server.respond(to: TravelpayoutsPath.search, with: try Fixture.response("travelpayouts-prices-for-dates"))
            let provider = TravelpayoutsProvider(settings: travelpayoutsSettings(baseURL), timeZone: testTimeZones)
            return try await provider.offers(for: roundTripQuery(adults: 2, infants: 1))
        }
        // 389 EUR per person: 2 × 38900 + 10% of 38900 for the infant.
        #expect(offers.map(\.price.minorUnits) == [81690, 86520])
        #expect(offers.allSatisfy { $0.price.currency == "EUR" && $0.provider == "travelpayouts" && !$0.simulated && $0.cabin == .economy })

        let nonstop = try #require(offers.first)
        #expect(nonstop.carrier == "VS" && nonstop.flightNumbers == ["VS3"])
        let out = try #require(nonstop.outbound.segments.first)
        #expect(out.fromAirport == "LHR" && out.toAirport == "JFK" && out.flightNumber == "VS3")
        #expect(out.departureLocal == "2026-12-01T11:20" && out.departureTimeZone == "Europe/London")
        #expect(out.arrivalLocal == "2026-12-01T14:15" && out.arrivalTimeZone == "America/New_York")
        #expect(nonstop.outbound.durationMinutes == 475 && nonstop.outbound.stops == 0)
        let back = try #require(nonstop.inbound.segments.first)
        #expect(back.fromAirport == "JFK" && back.toAirport == "LHR" && back.flightNumber.isEmpty)
        #expect(back.departureLocal == "2026-12-08T22:00" && back.arrivalLocal == "2026-12-09T09:50")
        #expect(nonstop.inbound.durationMinutes == 410)
        #expect(nonstop.bookingLink.hasPrefix("https://www.aviasales.com/search/LON0112NYC08121?t=VS"))
        #expect(nonstop.bookingLink.hasSuffix("&expected_price=389&marker=123456"))

        // One transfer each way: one segment per direction, the stop counted, no airport invented.
        let connecting = offers[1]
        #expect(connecting.outbound.segments.count == 1 && connecting.outbound.stops == 1)
        #expect(connecting.outbound.segments[0].toAirport == "JFK" && connecting.outbound.segments[0].arrivalLocal == "2026-12-01T13:40")
        #expect(connecting.inbound.stops == 1 && connecting.inbound.segments[0].arrivalLocal == "2026-12-09T08:50")
    }

    @Test("the request carries the documented query and the token header, never the token in the URL")
    func requestShape() async throws {
        let request = try await withStubServer { server, baseURL in
            server.respond(to: TravelpayoutsPath.search, with: try Fixture.response("travelpayouts-prices-for-dates"))
            _ = try await TravelpayoutsProvider(settings: travelpayoutsSettings(baseURL), timeZone: testTimeZones).offers(for: roundTripQuery())
            return try #require(server.requests(to: TravelpayoutsPath.search).first)
        }
        #expect(request.method == "GET")
        #expect(request.header("X-Access-Token") == TestSecrets.travelpayoutsToken)
        #expect(!request.uri.contains(TestSecrets.travelpayoutsToken))
        #expect(request.queryItems.map(\.name) == ["origin", "destination", "departure_at", "return_at", "one_way", "direct", "currency", "limit", "sorting"])
        #expect(request.queryItems.map(\.value) == ["LHR", "JFK", "2026-12-01", "2026-12-08", "false", "false", "eur", "30", "price"])
    }

    @Test("a one-way nonstop search asks for one_way and direct, and keeps only direct tickets")
    func oneWayNonstop() async throws {
        let (offers, request) = try await withStubServer { server, baseURL in
            server.respond(to: TravelpayoutsPath.search, with: try Fixture.response("travelpayouts-prices-for-dates"))
            var query = roundTripQuery()
            query.returnDate = nil
            query.nonstopOnly = true
            let offers = try await TravelpayoutsProvider(settings: travelpayoutsSettings(baseURL, marker: nil), timeZone: testTimeZones).offers(for: query)
            return (offers, try #require(server.requests.first))
        }
        #expect(request.query("return_at") == nil && request.query("one_way") == "true" && request.query("direct") == "true")
        #expect(offers.map(\.carrier) == ["VS"])
        #expect(offers.first?.hasInbound == false)
        #expect(offers.first?.bookingLink.contains("marker=") == false)
    }

    @Test("cabins other than economy get no offers and no call")
    func economyOnly() async throws {
        let calls = try await withStubServer { server, baseURL in
            let provider = TravelpayoutsProvider(settings: travelpayoutsSettings(baseURL), timeZone: testTimeZones)
            for cabin in [Cabin.premiumEconomy, .business, .first] {
                let offers = try await provider.offers(for: roundTripQuery(cabin: cabin))
                #expect(offers.isEmpty)
            }
            return server.requests.count
        }
        #expect(calls == 0)
    }

    @Test("booking links carry the marker and the sub-id, escaped")
    func linkComposition() {
        let path = "/search/LON0112NYC08121?t=VS1&expected_price=389"
        #expect(TravelpayoutsProvider.link(path, marker: "123456", subID: nil)
            == "https://www.aviasales.com/search/LON0112NYC08121?t=VS1&expected_price=389&marker=123456")
        #expect(TravelpayoutsProvider.link(path, marker: "123456", subID: "ios-fl-d1-none-dealcard-variantA-pro")
            == "https://www.aviasales.com/search/LON0112NYC08121?t=VS1&expected_price=389&marker=123456.ios-fl-d1-none-dealcard-variantA-pro")
        #expect(TravelpayoutsProvider.link("/search/LON0112NYC1", marker: "12 34", subID: "a&b=c/d")
            == "https://www.aviasales.com/search/LON0112NYC1?marker=12%2034.a%26b%3Dc%2Fd")
        #expect(TravelpayoutsProvider.link(path, marker: nil, subID: "ios-fl-x") == "https://www.aviasales.com" + path)
        let withMarker = TravelpayoutsProvider.link(path, marker: "123456", subID: nil)
        #expect(TravelpayoutsProvider.addingSubID("ios-fl-d1-w 2-sheet", to: withMarker) == withMarker.replacingOccurrences(
            of: "marker=123456", with: "marker=123456.ios-fl-d1-w%202-sheet"))
        #expect(TravelpayoutsProvider.addingSubID("x", to: "https://www.aviasales.com" + path) == "https://www.aviasales.com" + path)
    }

    @Test("configuration: absent keys give no provider, a token without a base URL names the base URL key")
    func configuration() throws {
        func reader(_ values: [String: String]) -> ConfigReader {
            var entries: [AbsoluteConfigKey: ConfigValue] = [:]
            for (key, value) in values { entries[AbsoluteConfigKey(stringLiteral: key)] = ConfigValue(.string(value), isSecret: false) }
            return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "search")
        }
        #expect(try TravelpayoutsProvider.fromConfiguration(reader(["search.travelpayouts.marker": "123"]), timeZone: testTimeZones) == nil)
        let partial = #expect(throws: ProviderError.self) {
            try TravelpayoutsProvider.fromConfiguration(reader(["search.travelpayouts.token": TestSecrets.travelpayoutsToken]), timeZone: testTimeZones)
        }
        #expect(partial?.code == "not-configured" && partial?.message == "not configured: search.travelpayouts.baseUrl is missing")
        let full = try TravelpayoutsProvider.fromConfiguration(reader([
            "search.travelpayouts.baseUrl": "https://api.travelpayouts.com", "search.travelpayouts.token": TestSecrets.travelpayoutsToken,
        ]), timeZone: testTimeZones)
        #expect(full?.name == "travelpayouts")
    }
}
