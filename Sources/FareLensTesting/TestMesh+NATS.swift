#if NATS
import FareLensBus
import FareLensNATS
import FareLensWire

/// The NATS shape of ``withTestMesh(_:deadline:bridge:configure:body:)``:
/// both buses join the shared test server in a namespace of their own and
/// the body runs once each has heard the other's heartbeat.
func withNATSMesh(serverBus: MessageBus, clientBus: MessageBus, body: @escaping @Sendable (TestMesh) async throws -> Void) async throws {
    let server = try TestNATSServer.shared()
    var settings = NATSSettings(urls: [server.url], namespace: "t\(UInt32.random(in: 0 ... .max))")
    settings.heartbeat = .milliseconds(500)
    let hub = try NATSTransport(bus: serverBus, settings: settings, identity: testIdentity("hub"), logger: quietLogger())
    let spoke = try NATSTransport(bus: clientBus, settings: settings, identity: testIdentity("spoke"), logger: quietLogger())
    serverBus.attach(hub)
    clientBus.attach(spoke)
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await hub.run() }
        group.addTask { try await spoke.run() }
        try await waitUntil("both nodes heard each other over NATS", limit: .seconds(30)) {
            hub.knownNodes["spoke"] != nil && spoke.knownNodes["hub"] != nil
        }
        let mesh = TestMesh(serverBus: serverBus, clientBus: clientBus, socketPath: "", hub: nil, spoke: nil)
        do {
            try await withTimeLimit("the test body finished") { try await body(mesh) }
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
    }
}
#endif
