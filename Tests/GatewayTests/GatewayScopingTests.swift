import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

@Suite("Gateway: a token acts for its own user only", .serialized)
struct GatewayScopingTests {
    @Test("every operation on another user's watchlist id answers 404, and nothing of theirs changes", arguments: GatewayShape.allCases)
    func crossUserMatrix(shape: GatewayShape) async throws {
        try await GatewayHarness.with(shape) { _, api in
            let ana = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let bo = try #require(try await api.signUp("bo@example.com").string("access_token"))
            let created = try await api.send(.POST, "/v1/me/watchlists", token: ana, json: #"{"origin":"JFK","destination":"LAX","dates":{"flexible":{"min_trip_days":5,"max_trip_days":9}}}"#)
            let id = try #require((created.json["watchlist"] as? [String: Any])?["watchlist_id"] as? String)
            let attempts: [(HTTPMethod, String, String?)] = [
                (.GET, "/v1/me/watchlists/\(id)", nil),
                (.PATCH, "/v1/me/watchlists/\(id)", #"{"destination":"SFO"}"#),
                (.PATCH, "/v1/me/watchlists/\(id)", #"{"user_id":"ignored","active":false}"#),
                (.POST, "/v1/me/watchlists/\(id)/check", nil),
                (.DELETE, "/v1/me/watchlists/\(id)", nil),
            ]
            for (method, path, body) in attempts {
                let reply = try await api.send(method, path, token: bo, json: body)
                #expect(reply.status == 404, "\(method) \(path): \(reply.text)")
                #expect(reply.headers.first(name: "Content-Type") == "application/problem+json")
            }
            #expect((try await api.send(.GET, "/v1/me/watchlists", token: bo).json["watchlists"] as? [Any])?.isEmpty == true)
            // A user id smuggled into a body acts for the token's user, not the named one.
            let smuggled = try await api.send(.POST, "/v1/me/watchlists", token: bo, json: #"{"user_id":"someone-else","origin":"LHR","destination":"BCN","dates":{"flexible":{}}}"#)
            let anaID = try #require((try await api.send(.GET, "/v1/me", token: ana).json["user"] as? [String: Any])?["user_id"] as? String)
            #expect(smuggled.status == 201 && (smuggled.json["watchlist"] as? [String: Any])?["user_id"] as? String != anaID)
            let mine = try await api.send(.GET, "/v1/me/watchlists/\(id)", token: ana)
            #expect(mine.status == 200 && (mine.json["watchlist"] as? [String: Any])?["destination"] as? String == "LAX")
            #expect((try await api.send(.GET, "/v1/me/watchlists", token: ana).json["watchlists"] as? [Any])?.count == 1)
        }
    }
}

@Suite("Gateway: rate limits answer 429 with Retry-After", .serialized)
struct GatewayRateLimitTests {
    @Test("sign-in from one address past its burst is 429 with Retry-After, and passes again once time moves")
    func signInBurst() async throws {
        try await GatewayHarness.with(.oneProcess, settings: ["gateway.signInBurst": "3", "gateway.signInPerMinute": "6"]) { harness, api in
            var statuses: [Int] = []
            for _ in 0..<4 {
                statuses.append(try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"x@example.com","password":"whatever1234"}"#).status)
            }
            #expect(statuses == [401, 401, 401, 429])
            let limited = try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"x@example.com","password":"whatever1234"}"#)
            #expect(limited.status == 429 && limited.code == "rate-limited" && limited.headers.first(name: "Retry-After") == "10")
            harness.monotonic.set(harness.monotonic.get() + 10)
            #expect(try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"x@example.com","password":"whatever1234"}"#).status == 401)
        }
    }

    @Test("a user's bucket: a search costs 10, a read 1; past the burst a request is 429 with RateLimit headers")
    func userBucket() async throws {
        try await GatewayHarness.with(.oneProcess, settings: ["gateway.userBurst": "12", "gateway.userPerSecond": "1"]) { harness, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let search = try await api.send(.POST, "/v1/search", token: token, json: #"{"origin":"JFK","destination":"LAX","departure_date":{"year":2027,"month":1,"day":15},"adults":1}"#)
            #expect(search.status == 200, "\(search.text)")
            #expect(search.headers.first(name: "RateLimit") == "limit=12, remaining=2, reset=10")
            #expect(try await api.send(.GET, "/v1/me", token: token).status == 200)
            #expect(try await api.send(.GET, "/v1/me", token: token).status == 200)
            let limited = try await api.send(.GET, "/v1/me", token: token)
            #expect(limited.status == 429 && limited.headers.first(name: "Retry-After") == "1", "\(limited.text)")
            harness.monotonic.set(harness.monotonic.get() + 1)
            #expect(try await api.send(.GET, "/v1/me", token: token).status == 200)
        }
    }
}
