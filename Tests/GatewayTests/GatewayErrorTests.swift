import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

@Suite("Gateway: errors are problem details with the service's code and field", .serialized)
struct GatewayErrorTests {
    @Test("bad input is answered 400/404/409/413/415/422 as application/problem+json naming the code and field")
    func problems() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let first = try await api.signUp("ana@example.com")
            let token = try #require(first.string("access_token"))
            let cases: [(APIClient.Reply, Int, String, String?)] = [
                (try await api.signUp("ana@example.com"), 409, "email-taken", "email"),
                (try await api.signUp("not-an-email"), 422, "invalid-field", "email"),
                (try await api.signUp("bo@example.com", password: "short"), 422, "weak-password", "password"),
                (try await api.signUp("bo@example.com", timeZone: "Mars/Olympus"), 422, "invalid-field", "time_zone"),
                (try await api.send(.POST, "/v1/auth/signup", json: #"{"email":"bo@example.com","passwd":"x"}"#), 400, "invalid-body", nil),
                (try await api.send(.POST, "/v1/auth/signup", json: "{not json"), 400, "invalid-body", nil),
                (try await api.send(.PATCH, "/v1/me", token: token, json: #"{"quiet_hours":{"start":null}}"#), 400, "invalid-body", "quiet_hours.start"),
                (try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"ana@example.com"}"#, headers: [("Content-Type", "text/plain")]), 415, "unsupported-media-type", nil),
                (try await api.send(.POST, "/v1/me/watchlists", token: token, json: "{\"origin\":\"" + String(repeating: "A", count: 70_000) + "\"}"), 413, "body-too-large", nil),
                (try await api.send(.POST, "/v1/me/watchlists", token: token, json: #"{"origin":"JFK","destination":"QQQ"}"#), 422, "unknown-airport", "destination"),
                (try await api.send(.GET, "/v1/nowhere", token: token), 404, "no-such-route", nil),
                (try await api.send(.GET, "/v1/me/deals?limit=banana", token: token), 400, "invalid-query", "limit"),
                (try await api.send(.GET, "/v1/me/deals?cursor=not-ours", token: token), 400, "invalid-query", "cursor"),
                (try await api.send(.PUT, "/v1/me/watchlists/w-1", token: token), 405, "method-not-allowed", nil),
                (try await api.send(.DELETE, "/v1/search", token: token), 405, "method-not-allowed", nil),
            ]
            for (reply, status, code, field) in cases {
                #expect(reply.status == status, "\(reply.text)")
                #expect(reply.headers.first(name: "Content-Type") == "application/problem+json", "\(reply.text)")
                #expect(reply.code == code, "\(reply.text)")
                #expect(reply.string("field") == field, "\(reply.text)")
                #expect(reply.json["status"] as? Int == status)
            }
            let wrongMethod = try await api.send(.PUT, "/v1/me/watchlists/w-1", token: token)
            #expect(wrongMethod.headers.first(name: "Allow") == "DELETE, GET, PATCH")
        }
    }
}
