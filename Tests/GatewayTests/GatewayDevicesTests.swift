import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

/// `/v1/me/devices`: registering phones for push through the API, scoped to the token's user.
@Suite("Gateway: devices for push", .serialized)
struct GatewayDevicesTests {
    static let token = String(repeating: "ab12cd34", count: 8)

    @Test("PUT registers (201, then 200), GET lists, another user's DELETE is 404, a bad token is 400 invalid-device-token, no session is 401", arguments: GatewayShape.allCases)
    func devices(shape: GatewayShape) async throws {
        try await GatewayHarness.with(shape) { _, api in
            let ana = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let bo = try #require(try await api.signUp("bo@example.com").string("access_token"))
            let body = #"{"environment":"SANDBOX","app_version":"1.4.0","locale":"en-GB","time_zone":"Europe/London"}"#
            let created = try await api.send(.PUT, "/v1/me/devices/\(Self.token.uppercased())", token: ana, json: body)
            #expect(created.status == 201, "\(created.text)")
            let device = try #require(created.json["device"] as? [String: Any])
            #expect(device["token"] as? String == Self.token && device["environment"] as? String == "SANDBOX" && device["time_zone"] as? String == "Europe/London")
            #expect(created.json["created"] as? Bool == true)
            let again = try await api.send(.PUT, "/v1/me/devices/\(Self.token)", token: ana, json: "{}")
            #expect(again.status == 200 && again.json["created"] as? Bool == false)
            let listed = try await api.send(.GET, "/v1/me/devices", token: ana)
            #expect((listed.json["devices"] as? [[String: Any]])?.map { $0["token"] as? String } == [Self.token])

            let theirs = try await api.send(.DELETE, "/v1/me/devices/\(Self.token)", token: bo)
            #expect(theirs.status == 404 && theirs.code == "not-found")
            #expect((try await api.send(.GET, "/v1/me/devices", token: bo).json["devices"] as? [Any])?.isEmpty ?? true)
            #expect((try await api.send(.GET, "/v1/me/devices", token: ana).json["devices"] as? [Any])?.count == 1)

            let bad = try await api.send(.PUT, "/v1/me/devices/not-a-token", token: ana, json: "{}")
            #expect(bad.status == 400 && bad.code == "invalid-device-token" && bad.string("field") == "token", "\(bad.text)")
            let platform = try await api.send(.PUT, "/v1/me/devices/\(Self.token)", token: ana, json: #"{"platform":"android"}"#)
            #expect(platform.status == 422 && platform.code == "invalid-field", "\(platform.text)")
            #expect(try await api.send(.PUT, "/v1/me/devices/\(Self.token)", json: "{}").status == 401)

            let removed = try await api.send(.DELETE, "/v1/me/devices/\(Self.token)", token: ana)
            #expect(removed.status == 204)
            #expect(try await api.send(.DELETE, "/v1/me/devices/\(Self.token)", token: ana).status == 404)
        }
    }
}
