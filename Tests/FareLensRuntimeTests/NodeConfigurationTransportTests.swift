import FareLensNATS
import FareLensRuntime
import FareLensServiceKit
import Testing

/// `bus.transport` and the `nats.*` keys: what they map to, and the named
/// error for each bad value (docs/operations.md, "Configuration").
@Suite("Node configuration: the bus transport and NATS keys")
struct NodeConfigurationTransportTests {
    static func load(_ environment: [String: String]) async throws -> NodeConfiguration {
        try await NodeConfiguration.load(flags: [:], configFile: nil, environment: environment)
    }

    static func error(_ environment: [String: String]) async -> ConfigurationError? {
        do {
            _ = try await load(environment)
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    @Test("the socket is the default transport, and no NATS settings are read")
    func socketByDefault() async throws {
        let configuration = try await Self.load([:])
        #expect(configuration.transport == .socket)
        #expect(configuration.nats == nil)
    }

    @Test("FARELENS_BUS_TRANSPORT=nats reads the servers (comma-separated), namespace, credentials and tuning from the environment")
    func natsFromEnvironment() async throws {
        guard NATSSettings.isBuiltIn else { return }
        let configuration = try await Self.load([
            "FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://a:4222, nats://b:4222", "FARELENS_NATS_NAMESPACE": "prod-eu",
            "FARELENS_NATS_USER": "node", "FARELENS_NATS_PASSWORD": "s3cret", "FARELENS_NATS_HEARTBEAT_MS": "500",
            "FARELENS_NATS_ACK_WAIT_MS": "10000", "FARELENS_NATS_MAX_ACK_PENDING": "64", "FARELENS_NATS_RETENTION_HOURS": "24",
        ])
        #expect(configuration.transport == .nats)
        let nats = try #require(configuration.nats)
        #expect(nats.urls == ["nats://a:4222", "nats://b:4222"])
        #expect(nats.namespace == "prod-eu")
        #expect(nats.user == "node")
        #expect(nats.password == "s3cret")
        #expect(nats.heartbeat == .milliseconds(500))
        #expect(nats.ackWait == .seconds(10))
        #expect(nats.maxAckPending == 64)
        #expect(nats.retention == .seconds(24 * 3600))
    }

    @Test("each bad value is refused at start-up, naming its key", arguments: [
        (["FARELENS_BUS_TRANSPORT": "carrier-pigeon"], "bus.transport"),
        (["FARELENS_BUS_TRANSPORT": "nats"], "nats.urls"),
        (["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://host:port"], "nats.urls"),
        (["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://h:4222", "FARELENS_NATS_NAMESPACE": "prod.eu"], "nats.namespace"),
        (["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://h:4222", "FARELENS_NATS_NAMESPACE": "a>"], "nats.namespace"),
        (["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://h:4222", "FARELENS_NATS_PASSWORD": "x"], "nats.user"),
        (["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://h:4222", "FARELENS_NATS_USER": "u", "FARELENS_NATS_CREDENTIALS_FILE": "/x.creds"], "nats.credentialsFile"),
        (["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://h:4222", "FARELENS_NATS_HEARTBEAT_MS": "0"], "nats.heartbeatMs"),
    ])
    func refused(environment: [String: String], key: String) async {
        guard NATSSettings.isBuiltIn || key == "bus.transport" else { return }
        let error = await Self.error(environment)
        #expect(error?.key == key, "\(String(describing: error))")
    }

    @Test("a bad namespace's message says what a namespace may hold")
    func namespaceMessage() async {
        guard NATSSettings.isBuiltIn else { return }
        let error = await Self.error(["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": "nats://h:4222", "FARELENS_NATS_NAMESPACE": "prod.eu"])
        #expect(error?.message == "invalid value 'prod.eu' for 'nats.namespace': expected 1 to 32 letters, digits, '-' or '_' (one NATS subject token and a stream name)")
    }
}
