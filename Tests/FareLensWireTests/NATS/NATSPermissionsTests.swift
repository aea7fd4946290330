#if NATS
import FareLensBus
@testable import FareLensNATS
import FareLensTesting
import Foundation
import Testing

/// Admin operations over NATS are for admin credentials only, as the
/// socket's uid allow-list keeps them for admin uids: the NATS server's
/// subject permissions (the shipped `ops/nats/permissions.conf`) keep a node
/// connected as `node` from reaching or serving an admin address, and the
/// transport turns the server's refusal into `forbidden` at once.
@Suite("NATS: admin addresses only for admin credentials")
struct NATSPermissionsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("with ops/nats/permissions.conf a 'node' user's request to an admin address is forbidden at once and never handled, and it cannot serve one; an 'admin' user reaches it; ordinary requests work for both")
    func adminAddressesNeedAdminCredentials() async throws {
        let server = try TestNATSServer.start(
            extraArguments: ["-c", Self.repository.appendingPathComponent("ops/nats/permissions.conf").path],
            environment: ["FARELENS_NATS_ADMIN_PASSWORD": "admin-secret-1", "FARELENS_NATS_NODE_PASSWORD": "node-secret-2"])
        defer { server.kill() }
        func settings(_ user: String, _ password: String) -> NATSSettings {
            var settings = NATSSettings(urls: [server.url], namespace: "farelens")
            settings.heartbeat = .milliseconds(500)
            settings.user = user
            settings.password = password
            return settings
        }
        let adminHandled = Locked(0)
        let core = try NATSTransportTests.Node(name: "core", settings: settings("admin", "admin-secret-1")) { bus in
            try bus.serve(EchoRequest.self, at: "admin.echo") { _, _ in
                adminHandled.update { $0 += 1 }
                return EchoResponse(text: "admin")
            }
            try bus.serve(SlowRequest.self) { _, _ in EchoResponse(text: "core") }
            return nil
        }
        defer { core.stop() }
        let edge = try NATSTransportTests.Node(name: "edge", settings: settings("node", "node-secret-2")) { bus in
            try bus.serve(EchoRequest.self, at: "admin.edge") { _, _ in EchoResponse(text: "edge") }
            return nil
        }
        defer { edge.stop() }
        let ops = try NATSTransportTests.Node(name: "ops", settings: settings("admin", "admin-secret-1"))
        defer { ops.stop() }
        try await waitUntil("the three nodes heard each other") {
            [core, edge, ops].allSatisfy { $0.transport.knownNodes.count == 2 }
        }

        // The edge node: refused by the server, told at once (not at the deadline), never handled.
        let refused = await busError { try await edge.bus.request(EchoRequest(text: "x"), timeout: .seconds(20), to: "admin.echo") }
        #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
        #expect(adminHandled.get() == 0)
        // Its ordinary requests pass.
        #expect(try await edge.bus.request(SlowRequest(), timeout: .seconds(10)).text == "core")
        // An admin node reaches the admin address; nobody reaches the one the edge node tried to serve.
        #expect(try await ops.bus.request(EchoRequest(text: "y"), timeout: .seconds(10), to: "admin.echo").text == "admin")
        #expect(adminHandled.get() == 1)
        let unserved = await busError { try await ops.bus.request(EchoRequest(text: "z"), timeout: .seconds(10), to: "admin.edge") }
        #expect(unserved?.kind == .serviceUnavailable, "\(String(describing: unserved))")
    }
}
#endif
