import FareLensMessages
import FareLensTesting
import Foundation
import SearchService
import Testing

/// Each way a live provider call can fail, for both providers, with the
/// error code it must produce.
enum FailureScenario: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case tokenRefused, searchRefused, rateLimited, serverError, unexpectedStatus, malformedJSON, malformedToken
    case neverAnswers, headersThenSilence, connectionRefused, notConfigured

    var testDescription: String { rawValue }

    /// The expected `ProviderError.code`; nil when the scenario does not apply.
    func expectedCode(amadeus: Bool) -> String? {
        switch self {
        case .tokenRefused, .malformedToken: amadeus ? (self == .tokenRefused ? "auth" : "malformed-response") : nil
        case .searchRefused: "auth"
        case .rateLimited: "http-429"
        case .serverError: "http-5xx"
        case .unexpectedStatus: "http-status"
        case .malformedJSON: "malformed-response"
        case .neverAnswers, .headersThenSilence: "timeout"
        case .connectionRefused: "transport"
        case .notConfigured: "not-configured"
        }
    }

    /// Bodies that quote the secrets, to prove bodies are never echoed.
    static let leakyBody = "{\"error\":\"\(TestSecrets.all.joined(separator: " "))\""

    /// Scripts `server` for this scenario.
    func script(_ server: StubHTTPServer, searchPath: String) throws {
        let token: StubResponse = self == .tokenRefused ? .json(Self.leakyBody, status: 401)
            : self == .malformedToken ? .json("{\"access_token\": 42, \"note\": \"\(TestSecrets.amadeusClientSecret)\"}")
            : try Fixture.response("amadeus-token")
        server.respond(to: AmadeusPath.token, with: token)
        let search: StubResponse = switch self {
        case .searchRefused: .json(Self.leakyBody, status: 401)
        case .rateLimited: .json(Self.leakyBody, status: 429, headers: [("Retry-After", "7")])
        case .serverError: .json(Self.leakyBody, status: 503)
        case .unexpectedStatus: .json(Self.leakyBody, status: 400)
        case .malformedJSON: .json("{\"data\": [{\"price\": \"\(TestSecrets.all.joined())\"")
        case .neverAnswers: .never
        case .headersThenSilence: .headOnly
        default: .json("{\"success\":true,\"data\":[],\"currency\":\"eur\"}")
        }
        server.respond(to: searchPath, with: search)
    }
}

@Suite("Live provider failures")
struct ProviderFailureTests {
    /// Runs `scenario` against a fresh stub server; nil when it does not apply.
    private func failure(_ scenario: FailureScenario, amadeus: Bool) async throws -> ProviderError? {
        guard scenario.expectedCode(amadeus: amadeus) != nil else { return nil }
        return try await withStubServer { server, liveURL in
            try scenario.script(server, searchPath: amadeus ? AmadeusPath.search : TravelpayoutsPath.search)
            var baseURL = liveURL
            if scenario == .connectionRefused {
                // A port that was just free'd: nothing listens there any more.
                let closed = StubHTTPServer()
                baseURL = try await closed.start()
                try await closed.stop()
            }
            let timeout: Duration = [.neverAnswers, .headersThenSilence].contains(scenario) ? .milliseconds(200) : .seconds(5)
            let provider: any FareProvider
            if amadeus {
                var settings = amadeusSettings(baseURL, timeout: timeout)
                if scenario == .notConfigured { settings.clientID = "" }
                provider = AmadeusProvider(settings: settings, timeZone: testTimeZones)
            } else {
                var settings = travelpayoutsSettings(baseURL, timeout: timeout)
                if scenario == .notConfigured { settings.endpoint.baseURL = "" }
                provider = TravelpayoutsProvider(settings: settings, timeZone: testTimeZones)
            }
            return await providerError { () async throws(ProviderError) in _ = try await provider.offers(for: roundTripQuery()) }
        }
    }

    @Test("every failure becomes its named error code", arguments: FailureScenario.allCases, [true, false])
    func codes(scenario: FailureScenario, amadeus: Bool) async throws {
        guard let expected = scenario.expectedCode(amadeus: amadeus) else { return }
        let error = try #require(try await failure(scenario, amadeus: amadeus))
        #expect(error.code == expected, "\(error)")
        #expect(error.provider == (amadeus ? "amadeus" : "travelpayouts"))
    }

    @Test("HTTP 429 carries the Retry-After seconds", arguments: [true, false])
    func retryAfter(amadeus: Bool) async throws {
        let error = try #require(try await failure(.rateLimited, amadeus: amadeus))
        #expect(error.retryAfter == .seconds(7))
        #expect(error.message == "rate limited (HTTP 429), retry after 7 s")
    }

    @Test("two 401s in a row end with an auth error after exactly one token refresh")
    func repeated401() async throws {
        let (error, tokens, searches) = try await withStubServer { server, baseURL in
            server.respond(to: AmadeusPath.token, with: try Fixture.response("amadeus-token"))
            server.respond(to: AmadeusPath.search, with: try Fixture.response("amadeus-error-401", status: 401))
            let provider = AmadeusProvider(settings: amadeusSettings(baseURL), timeZone: testTimeZones)
            let error = await providerError { () async throws(ProviderError) in _ = try await provider.offers(for: roundTripQuery()) }
            return (error, server.requests(to: AmadeusPath.token).count, server.requests(to: AmadeusPath.search).count)
        }
        #expect(error?.code == "auth")
        #expect(tokens == 2 && searches == 2)
    }

    @Test("the API's success=false is a malformed response, its error text not repeated")
    func travelpayoutsSuccessFalse() async throws {
        let error = try await withStubServer { server, baseURL in
            server.respond(to: TravelpayoutsPath.search, with: try Fixture.response("travelpayouts-error"))
            let provider = TravelpayoutsProvider(settings: travelpayoutsSettings(baseURL), timeZone: testTimeZones)
            return await providerError { () async throws(ProviderError) in _ = try await provider.offers(for: roundTripQuery()) }
        }
        #expect(error?.code == "malformed-response")
        #expect(error?.message.contains("Unauthorized") == false)
    }

    @Test("no failure path and no settings description reveals a secret")
    func secretsNeverShown() async throws {
        var texts: [String] = []
        for scenario in FailureScenario.allCases {
            for amadeus in [true, false] {
                guard let error = try await failure(scenario, amadeus: amadeus) else { continue }
                texts += [String(describing: error), String(reflecting: error), error.message]
            }
        }
        let amadeus = amadeusSettings("https://test.api.amadeus.com")
        let travelpayouts = travelpayoutsSettings("https://api.travelpayouts.com")
        texts += [String(describing: amadeus), String(reflecting: amadeus), String(describing: travelpayouts), String(reflecting: travelpayouts)]
        var dumped = ""
        dump(amadeus, to: &dumped)
        dump(travelpayouts, to: &dumped)
        texts.append(dumped)
        #expect(texts.count > 40)
        for text in texts {
            for secret in TestSecrets.all {
                #expect(!text.contains(secret), "\(text)")
            }
        }
    }
}
