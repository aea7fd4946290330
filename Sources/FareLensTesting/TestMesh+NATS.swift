#if NATS
import FareLensBus
import FareLensNATS
import FareLensWire

/// The NATS shape of ``withTestMesh(_:deadline:bridge:configure:body:)``:
/// both buses join the shared test server in a namespace of their own and
/// the body runs once each has heard the other's heartbeat.
func withNATSMesh(serverBus: MessageBus, clientBus: MessageBus, body: @escaping @Sendable (TestMesh) async throws -> Void) async throws {
    let server = try await TestNATSServer.shared()
    // The production heartbeat (1 s: a node silent for 3 s is forgotten). With 500 ms, a loaded test run
    // forgot a live node after 1.5 s of silence ("node spoke left before answering", 2026-11-30): these
    // tests are of the services' behaviour across NATS, not of how soon a dead node is noticed
    // (NATSTransportTests.answeringNodeDies is).
    let settings = NATSSettings(urls: [server.url], namespace: "t\(UInt32.random(in: 0 ... .max))")
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
