#if NATS
import FareLensBus
import FareLensNATS
import FareLensWire

/// The NATS shape of ``withTestMesh(_:deadline:bridge:configure:body:)``:
/// both buses join the shared test server in a namespace of their own and
/// the body runs once each has heard the other's heartbeat.
func withNATSMesh(serverBus: MessageBus, clientBus: MessageBus, body: @escaping @Sendable (TestMesh) async throws -> Void) async throws {
    let server = try await TestNATSServer.shared()
    var settings = NATSSettings(urls: [server.url], namespace: "t\(UInt32.random(in: 0 ... .max))")
    settings.heartbeat = .milliseconds(500)
    let hub = try await NATSTransport.connect(bus: serverBus, settings: settings, identity: testIdentity("hub"), logger: quietLogger())
    let spoke = try await NATSTransport.connect(bus: clientBus, settings: settings, identity: testIdentity("spoke"), logger: quietLogger())
    serverBus.attach(hub)
    clientBus.attach(spoke)
    let mesh = TestMesh(serverBus: serverBus, clientBus: clientBus, socketPath: "", hub: nil, spoke: nil)
    try await withRunningEnds([{ try await hub.run() }, { try await spoke.run() }], until: "both nodes heard each other over NATS", {
        hub.knownNodes["spoke"] != nil && spoke.knownNodes["hub"] != nil
    }, mesh: mesh, body: body)
}
#endif
