import Configuration
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensTesting
import Foundation
import SearchService
import Testing

@Suite("Amadeus flight offers over HTTP")
struct AmadeusProviderTests {
    @Test("offers are mapped exactly: exact minor units, local times without seconds, zones, stops and flight numbers")
    func mapsOffers() async throws {
        let offers = try await withStubServer { server, baseURL in
            server.respond(to: AmadeusPath.token, with: try Fixture.response("amadeus-token"))
            server.respond(to: AmadeusPath.search, with: try Fixture.response("amadeus-flight-offers"))
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            return try await provider.offers(for: roundTripQuery())
        }
        #expect(offers.map(\.price.minorUnits) == [49810, 61247, 65500])
        #expect(offers.allSatisfy { $0.price.currency == "EUR" && $0.provider == "amadeus" && !$0.simulated })
        #expect(offers.allSatisfy { $0.offerID.isEmpty && $0.bookingLink.isEmpty && $0.cabin == .economy })
        #expect(offers.map(\.carrier) == ["EI", "BA", "VS"])

        let connecting = try #require(offers.first)
        #expect(connecting.flightNumbers == ["EI155", "EI105", "EI104", "EI154"])
        #expect(connecting.outbound.stops == 1 && connecting.outbound.durationMinutes == 720)
        #expect(connecting.inbound.stops == 1 && connecting.inbound.durationMinutes == 575)
        let first = try #require(connecting.outbound.segments.first)
        #expect(first.fromAirport == "LHR" && first.toAirport == "DUB")
        #expect(first.departureLocal == "2026-12-01T06:40" && first.arrivalLocal == "2026-12-01T08:00")
        #expect(first.departureTimeZone == "Europe/London" && first.arrivalTimeZone == "Europe/Dublin")
        #expect(first.carrier == "EI" && first.flightNumber == "EI155" && first.durationMinutes == 80)
        let overnight = try #require(connecting.inbound.segments.first)
        #expect(overnight.departureLocal == "2026-12-08T18:15" && overnight.departureTimeZone == "America/New_York")
        #expect(overnight.arrivalLocal == "2026-12-09T05:50" && overnight.durationMinutes == 395)

        let nonstop = offers[1]
        #expect(nonstop.outbound.stops == 0 && nonstop.outbound.segments.count == 1 && nonstop.outbound.durationMinutes == 470)
        #expect(nonstop.flightNumbers == ["BA117", "BA178"])
    }

    @Test("the search carries the documented query and the bearer token; the token request is a client-credentials form")
    func requestShape() async throws {
        let (token, search) = try await withStubServer { server, baseURL in
            server.respond(to: AmadeusPath.token, with: try Fixture.response("amadeus-token"))
            server.respond(to: AmadeusPath.search, with: try Fixture.response("amadeus-flight-offers"))
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            _ = try await provider.offers(for: roundTripQuery(adults: 2, children: 1, infants: 1, cabin: .premiumEconomy))
            return (try #require(server.requests(to: AmadeusPath.token).first), try #require(server.requests(to: AmadeusPath.search).first))
        }
        #expect(token.method == "POST")
        #expect(token.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(token.formItems.map(\.name) == ["grant_type", "client_id", "client_secret"])
        #expect(token.formItems.map(\.value) == ["client_credentials", TestSecrets.amadeusClientID, TestSecrets.amadeusClientSecret])

        #expect(search.method == "GET")
        #expect(search.header("Authorization") == "Bearer \(TestSecrets.amadeusToken)")
        #expect(search.queryItems.map(\.name) == [
            "originLocationCode", "destinationLocationCode", "departureDate", "returnDate", "adults", "children",
            "infants", "travelClass", "nonStop", "currencyCode", "max",
        ])
        #expect(search.queryItems.map(\.value) == ["LHR", "JFK", "2026-12-01", "2026-12-08", "2", "1", "1", "PREMIUM_ECONOMY", "false", "EUR", "50"])
    }

    @Test("a one-way nonstop search leaves out returnDate and zero children and infants")
    func oneWayRequest() async throws {
        let search = try await withStubServer { server, baseURL in
            server.respond(to: AmadeusPath.token, with: try Fixture.response("amadeus-token"))
            server.respond(to: AmadeusPath.search, with: .json(#"{"meta":{"count":0},"data":[]}"#))
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            var query = roundTripQuery(cabin: .first)
            query.returnDate = nil
            query.nonstopOnly = true
            #expect(try await provider.offers(for: query).isEmpty)
            return try #require(server.requests(to: AmadeusPath.search).first)
        }
        #expect(search.query("returnDate") == nil && search.query("children") == nil && search.query("infants") == nil)
        #expect(search.query("travelClass") == "FIRST" && search.query("nonStop") == "true")
    }

    @Test("one token serves two searches")
    func tokenReused() async throws {
        let tokenRequests = try await withStubServer { server, baseURL in
            server.respond(to: AmadeusPath.token, with: try Fixture.response("amadeus-token"))
            server.respond(to: AmadeusPath.search, with: try Fixture.response("amadeus-flight-offers"))
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            _ = try await provider.offers(for: roundTripQuery())
            _ = try await provider.offers(for: roundTripQuery(adults: 2))
            #expect(server.requests(to: AmadeusPath.search).count == 2)
            return server.requests(to: AmadeusPath.token).count
        }
        #expect(tokenRequests == 1)
    }

    @Test("searches started together wait for one token fetch")
    func concurrentSearchesShareOneFetch() async throws {
        let tokenRequests = try await withStubServer { server, baseURL in
            var token = try Fixture.response("amadeus-token")
            token.delay = .milliseconds(100)  // keeps the fetch in flight while the others arrive
            server.respond(to: AmadeusPath.token, with: token)
            server.respond(to: AmadeusPath.search, with: try Fixture.response("amadeus-flight-offers"))
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0 ..< 4 {
                    group.addTask { try await provider.offers(for: roundTripQuery()).count }
                }
                for try await count in group { #expect(count == 3) }
            }
            return server.requests(to: AmadeusPath.token).count
        }
        #expect(tokenRequests == 1)
    }

    @Test("a token about to expire is fetched again")
    func tokenRefreshedAfterExpiry() async throws {
        let searches = try await withStubServer { server, baseURL in
            server.enqueue(try Fixture.response("amadeus-token"), for: AmadeusPath.token)
            server.enqueue(Fixture.token("secondToken"), for: AmadeusPath.token)
            server.respond(to: AmadeusPath.search, with: try Fixture.response("amadeus-flight-offers"))
            let clock = ManualWallClock()
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones, transport: TransportClock { clock.now() })
            _ = try await provider.offers(for: roundTripQuery())
            clock.advance(by: 1700)  // 1799 s lifetime: still good
            _ = try await provider.offers(for: roundTripQuery())
            #expect(server.requests(to: AmadeusPath.token).count == 1)
            clock.advance(by: 60)  // within the last minute: refreshed
            _ = try await provider.offers(for: roundTripQuery())
            #expect(server.requests(to: AmadeusPath.token).count == 2)
            return server.requests(to: AmadeusPath.search)
        }
        #expect(searches.map { $0.header("Authorization") } == [
            "Bearer \(TestSecrets.amadeusToken)", "Bearer \(TestSecrets.amadeusToken)", "Bearer secondToken",
        ])
    }

    @Test("a search answered 401 gets a new token once and is retried once")
    func refreshOn401() async throws {
        let (offers, tokens, searches) = try await withStubServer { server, baseURL in
            server.enqueue(try Fixture.response("amadeus-token"), for: AmadeusPath.token)
            server.enqueue(Fixture.token("renewedToken"), for: AmadeusPath.token)
            server.enqueue(try Fixture.response("amadeus-error-401", status: 401), for: AmadeusPath.search)
            server.enqueue(try Fixture.response("amadeus-flight-offers"), for: AmadeusPath.search)
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            let offers = try await provider.offers(for: roundTripQuery())
            return (offers, server.requests(to: AmadeusPath.token), server.requests(to: AmadeusPath.search))
        }
        #expect(offers.count == 3)
        #expect(tokens.count == 2)
        #expect(searches.map { $0.header("Authorization") } == ["Bearer \(TestSecrets.amadeusToken)", "Bearer renewedToken"])
    }

    @Test("without validatingAirlineCodes the offer's carrier is the first segment's")
    func carrierFallback() async throws {
        var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Fixture.url("amadeus-flight-offers"))) as? [String: Any])
        var offers = try #require(document["data"] as? [[String: Any]])
        offers[1].removeValue(forKey: "validatingAirlineCodes")
        document["data"] = [offers[1]]
        let body = try JSONSerialization.data(withJSONObject: document)
        let mapped = try await withStubServer { server, baseURL in
            server.respond(to: AmadeusPath.token, with: try Fixture.response("amadeus-token"))
            server.respond(to: AmadeusPath.search, with: StubResponse(body: body))
            return try await AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: { _ in nil }).offers(for: roundTripQuery())
        }
        #expect(mapped.map(\.carrier) == ["BA"])
        #expect(mapped.first?.outbound.segments.first?.departureTimeZone == "")
    }

    @Test("configuration: absent keys give no provider, partial keys name the missing key, full keys give a provider")
    func configuration() throws {
        func reader(_ values: [String: String]) -> ConfigReader {
            var entries: [AbsoluteConfigKey: ConfigValue] = [:]
            for (key, value) in values { entries[AbsoluteConfigKey(stringLiteral: key)] = ConfigValue(.string(value), isSecret: false) }
            return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "search")
        }
        #expect(try AmadeusProvider.fromConfiguration(reader([:]), timeZone: testTimeZones) == nil)
        let partial = #expect(throws: ProviderError.self) {
            try AmadeusProvider.fromConfiguration(reader(["search.amadeus.baseUrl": "https://test.api.amadeus.com", "search.amadeus.clientId": "id"]), timeZone: testTimeZones)
        }
        #expect(partial?.code == "not-configured")
        #expect(partial?.message.contains("search.amadeus.clientSecret") == true)
        let badTimeout = #expect(throws: ProviderError.self) {
            try AmadeusProvider.fromConfiguration(reader([
                "search.amadeus.baseUrl": "https://test.api.amadeus.com", "search.amadeus.clientId": "id",
                "search.amadeus.clientSecret": TestSecrets.amadeusClientSecret, "search.amadeus.timeoutMs": "soon",
            ]), timeZone: testTimeZones)
        }
        #expect(badTimeout?.code == "not-configured" && badTimeout?.message.contains("search.amadeus.timeoutMs") == true)
        let full = try AmadeusProvider.fromConfiguration(reader([
            "search.amadeus.baseUrl": "https://test.api.amadeus.com/", "search.amadeus.clientId": "id",
            "search.amadeus.clientSecret": TestSecrets.amadeusClientSecret, "search.amadeus.timeoutMs": "2500",
        ]), timeZone: testTimeZones)
        #expect(full?.name == "amadeus" && full?.isLive == true)
    }
}
