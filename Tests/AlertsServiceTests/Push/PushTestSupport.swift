@testable import AlertsService
import AsyncHTTPClient
import Crypto
import FareLensMessages
import FareLensServiceKit
import FareLensTesting
import Foundation

/// A provider key, the APNs stub that knows its public half, and the
/// channel settings that reach the stub (its certificate trusted).
struct PushKit {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"
    static let topic = "com.farelens.app"

    let key = P256.Signing.PrivateKey()
    let stub: APNsStub
    let baseURL: String
    let settings: ApnsSettings

    /// - Parameters:
    ///   - stubNow: the stub's clock, for the provider token's age.
    ///   - timeout: the channel's bound on one push.
    init(stubNow: @escaping @Sendable () -> Date = { Date() }, timeout: Duration = .seconds(10)) async throws {
        stub = try await APNsStub(providerKey: key.publicKey, keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic, now: stubNow)
        baseURL = try await stub.start()
        settings = ApnsSettings(
            keyPEM: key.pemRepresentation, keyID: Self.keyID, teamID: Self.teamID, topic: Self.topic, baseURL: baseURL,
            trustRootsPEM: stub.certificatePEM, timeout: timeout)
    }

    /// A channel to the stub on its own HTTP client (shut down by ``finish(_:)``), reading `transport` for its tokens.
    func channel(transport: TransportClock = .system) throws -> (ApnsChannel, HTTPClient) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        return (try ApnsChannel(settings: settings, client: client, transport: transport), client)
    }

    func finish(_ client: HTTPClient) async {
        try? await client.shutdown()
        await stub.stop()
    }

    /// A device token of 64 hex digits made from `seed`.
    static func token(_ seed: Int) -> String {
        String(repeating: String(format: "%08x", seed), count: 8)
    }

    /// A push of `body` for `alertID` to the device `token`.
    static func alert(_ alertID: String, token: String, collapseID: String = "JFK-NRT", body: String = #"{"aps":{"alert":{"title":"t","body":"b"}}}"#, expiresAt: Date? = nil, attempt: Int = 1) -> OutboundAlert {
        OutboundAlert(
            alertID: alertID, userID: "u1", kind: .thresholdCrossed, body: Data(body.utf8), attempt: attempt,
            device: PushDevice(token: token, environment: .production), collapseID: collapseID, expiresAt: expiresAt)
    }
}
