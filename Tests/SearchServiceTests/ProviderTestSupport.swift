import FareLensMessages
import FareLensTesting
import Foundation
import SearchService

/// Recorded responses in Fixtures/ (see Fixtures/README.md).
enum Fixture {
    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "fixture \(name).json is not in the test bundle" }
    }

    static func url(_ name: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw Missing(name: name)
        }
        return url
    }

    static func text(_ name: String) throws -> String { String(decoding: try Data(contentsOf: url(name)), as: UTF8.self) }

    /// The fixture as a JSON answer.
    static func response(_ name: String, status: Int = 200, headers: [(name: String, value: String)] = []) throws -> StubResponse {
        try StubResponse.json(contentsOf: url(name), status: status, headers: headers)
    }

    /// A token answer with another token value.
    static func token(_ value: String, expiresIn: Int = 1799) -> StubResponse {
        .json(#"{"type":"amadeusOAuth2Token","token_type":"Bearer","access_token":"\#(value)","expires_in":\#(expiresIn),"state":"approved","scope":""}"#)
    }
}

/// Credentials used by the tests; none may ever show up in an error.
enum TestSecrets {
    static let amadeusClientID = "fixture-client-id"
    static let amadeusClientSecret = "s3cret-Amadeus&key=value"
    /// The access token in amadeus-token.json.
    static let amadeusToken = "fixtureAccessToken1"
    static let travelpayoutsToken = "tp-Token-6f1e9d2c"
    static let all = [amadeusClientSecret, amadeusToken, travelpayoutsToken]
}

/// The airports the fixtures use.
let testTimeZones: @Sendable (String) -> String? = { code in
    ["LHR": "Europe/London", "JFK": "America/New_York", "DUB": "Europe/Dublin"][code]
}

/// LHR→JFK, 1–8 December 2026, economy, EUR.
func roundTripQuery(adults: Int = 1, children: Int = 0, infants: Int = 0, cabin: Cabin = .economy) -> FareQuery {
    FareQuery(
        origin: "LHR", destination: "JFK",
        departureDate: CalendarDate(year: 2026, month: 12, day: 1)!, returnDate: CalendarDate(year: 2026, month: 12, day: 8)!,
        adults: adults, children: children, infants: infants, cabin: cabin
    )
}

/// Runs `body` against a started stub server and always stops it.
func withStubServer<Result>(_ body: (StubHTTPServer, String) async throws -> Result) async throws -> Result {
    let server = StubHTTPServer()
    let baseURL = try await server.start()
    do {
        let result = try await body(server, baseURL)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

func amadeusSettings(_ baseURL: String, timeout: Duration = .seconds(5)) -> AmadeusSettings {
    AmadeusSettings(
        endpoint: LiveProviderSettings(baseURL: baseURL, timeout: timeout),
        clientID: TestSecrets.amadeusClientID, clientSecret: TestSecrets.amadeusClientSecret
    )
}

func travelpayoutsSettings(_ baseURL: String, timeout: Duration = .seconds(5), marker: String? = "123456") -> TravelpayoutsSettings {
    TravelpayoutsSettings(
        endpoint: LiveProviderSettings(baseURL: baseURL, timeout: timeout),
        token: TestSecrets.travelpayoutsToken, marker: marker
    )
}

/// The error `body` throws, or nil when it succeeds.
func providerError(_ body: () async throws(ProviderError) -> Void) async -> ProviderError? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}

enum AmadeusPath {
    static let token = "/v1/security/oauth2/token"
    static let search = "/v2/shopping/flight-offers"
}

enum TravelpayoutsPath {
    static let search = "/aviasales/v3/prices_for_dates"
}
