import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

@Suite("Gateway: the app's walkthrough over HTTP", .serialized)
struct GatewayWalkthroughTests {
    @Test("sign up, look up airports, add a watchlist, read it back, the feed and the alert history", arguments: GatewayShape.allCases)
    func walkthrough(shape: GatewayShape) async throws {
        try await GatewayHarness.with(shape) { _, api in
            let session = try await api.signUp("maya@example.com", extra: #","home_airport":"JFK""#)
            #expect(session.status == 201, "\(session.text)")
            #expect(session.string("token_type") == "Bearer" && session.json["expires_in"] as? Int == 3600)
            #expect(session.headers.first(name: "Cache-Control") == "no-store")
            let token = try #require(session.string("access_token"))
            #expect(session.string("refresh_token")?.count == 43)

            let me = try await api.send(.GET, "/v1/me", token: token)
            #expect(me.status == 200)
            let user = try #require(me.json["user"] as? [String: Any])
            #expect(user["email"] as? String == "maya@example.com" && user["tier"] as? String == "TRIAL" && user["home_airport"] as? String == "JFK")
            #expect(me.headers.first(name: "X-Request-ID") != nil && me.headers.first(name: "RateLimit")?.hasPrefix("limit=60") == true)

            let airports = try await api.send(.GET, "/v1/airports?q=san", token: token)
            #expect(airports.status == 200)
            #expect(((airports.json["suggestions"] as? [Any])?.count ?? 0) > 0, "\(airports.text)")

            let created = try await api.send(.POST, "/v1/me/watchlists", token: token, json: #"{"origin":"JFK","destination":"LAX","dates":{"flexible":{"min_trip_days":5,"max_trip_days":9}}}"#)
            #expect(created.status == 201, "\(created.text)")
            let watchlist = try #require(created.json["watchlist"] as? [String: Any])
            let id = try #require(watchlist["watchlist_id"] as? String)
            #expect(created.headers.first(name: "Location") == "/v1/me/watchlists/\(id)")
            #expect(watchlist["user_id"] as? String == user["user_id"] as? String)

            let list = try await api.send(.GET, "/v1/me/watchlists", token: token)
            #expect(list.status == 200 && (list.json["watchlists"] as? [Any])?.count == 1)
            let one = try await api.send(.GET, "/v1/me/watchlists/\(id)", token: token)
            #expect(one.status == 200)
            let renamed = try await api.send(.PATCH, "/v1/me/watchlists/\(id)", token: token, json: #"{"destination":"SFO"}"#)
            #expect(renamed.status == 200 && (renamed.json["watchlist"] as? [String: Any])?["destination"] as? String == "SFO", "\(renamed.text)")

            let feed = try await api.send(.GET, "/v1/me/deals?limit=5", token: token)
            #expect(feed.status == 200, "\(feed.text)")
            let history = try await api.send(.GET, "/v1/me/alerts", token: token)
            #expect(history.status == 200 && (history.json["alerts"] as? [Any]) != nil, "\(history.text)")
            let entitlements = try await api.send(.GET, "/v1/me/entitlements", token: token)
            #expect(entitlements.status == 200 && (entitlements.json["entitlements"] as? [String: Any])?["tier"] as? String == "TRIAL")

            let deleted = try await api.send(.DELETE, "/v1/me/watchlists/\(id)", token: token)
            #expect(deleted.status == 204)
            #expect(try await api.send(.GET, "/v1/me/watchlists/\(id)", token: token).status == 404)
        }
    }

    @Test("the OpenAPI document is served at /openapi.yaml, as committed")
    func servesTheDocument() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let served = try await api.send(.GET, "/openapi.yaml")
            #expect(served.status == 200 && served.headers.first(name: "Content-Type") == "application/yaml")
            let committed = try String(contentsOfFile: GatewaySpecTests.specPath, encoding: .utf8)
            #expect(served.text == committed)
        }
    }
}
