#if NATS
import FareLensBus
import FareLensNATS
import FareLensTesting
import Foundation
import GRDB
import Testing

/// Real processes joined by a real `nats-server`, killed with SIGKILL: no
/// goodbye, no cleanup, nothing flushed that was not already sent.
@Suite("Processes over NATS", .serialized)
struct NATSProcessTests {
    private static func scratchDirectory() -> String {
        temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
    }

    private static func natsEnvironment(_ server: TestNATSServer, namespace: String) -> [String: String] {
        ["FARELENS_BUS_TRANSPORT": "nats", "FARELENS_NATS_URLS": server.url, "FARELENS_NATS_NAMESPACE": namespace, "FARELENS_NATS_HEARTBEAT_MS": "500"]
    }

    @Test("two farelens processes over NATS serve all six services between them; farelensctl on one node's socket searches on the other and lists both nodes; kill -9 of the search node fails searches as service-unavailable, and its restart answers again")
    func twoNodesOverNATS() async throws {
        let server = try await TestNATSServer.start()
        defer { server.kill() }
        let directory = Self.scratchDirectory()
        let environment = Self.natsEnvironment(server, namespace: "two-nodes")
        let searchArguments = ["serve", "--services", "search,scoring", "--data-dir", directory + "/search", "--listen", directory + "/search.sock", "--node-name", "search-node", "--log-level", "error"]
        let restArguments = ["serve", "--services", "watchlist,alerts,subscription,analytics", "--data-dir", directory + "/rest", "--listen", directory + "/rest.sock", "--node-name", "rest-node", "--log-level", "error"]
        var searchNode = try ChildProcess.start(Binaries.farelens, searchArguments, environment: environment)
        defer { searchNode.kill() }
        let restNode = try ChildProcess.start(Binaries.farelens, restArguments, environment: environment)
        defer { restNode.kill() }
        try await searchNode.waitForOutput(containing: "farelens ready", limit: .seconds(60))
        try await restNode.waitForOutput(containing: "farelens ready", limit: .seconds(60))
        #expect(restNode.output.get().contains("nats:\(server.url)/two-nodes"), "the ready line names the transport: \(restNode.output.get())")

        let search = ["--socket", directory + "/rest.sock", "--json", "search", "LIS", "LON", TwoProcessTests.isoDate(daysFromNow: 30)]
        var last = ""
        try await waitUntil("a search through the rest node is answered by the search node over NATS (last: \(last))", limit: .seconds(30)) {
            let result = try? await ChildProcess.run(Binaries.farelensctl, search)
            last = result.map { "\($0.status) \($0.stderr)" } ?? "not run"
            return result?.status == 0 && result?.stdout.contains("\"simulated\" : true") == true
        }

        // farelensctl status on the rest node lists the search node as a node of the namespace.
        let status = try await meshStatus(directory + "/rest.sock") { nodes in nodes.contains { $0.node == "search-node" } }
        let nodes = Dictionary(uniqueKeysWithValues: status.map { ($0.node, $0) })
        #expect(nodes["rest-node"]?.role == "hub")
        #expect(nodes["search-node"]?.role == "nats")
        #expect(nodes["search-node"]?.pid == searchNode.pid)
        #expect(Set(nodes["search-node"]?.services ?? []) == ["search", "scoring"])
        #expect(Set(nodes["rest-node"]?.services ?? []) == ["watchlist", "alerts", "subscription", "analytics"])

        searchNode.kill()
        try await waitUntil("after the kill, searches fail as service-unavailable, not by timing out (last: \(last))", limit: .seconds(30)) {
            let result = try? await ChildProcess.run(Binaries.farelensctl, search)
            last = result.map { "\($0.status) \($0.stdout) \($0.stderr)" } ?? "not run"
            return result?.status == 1 && last.contains("service-unavailable")
        }
        #expect(!last.contains("timeout"), "\(last)")

        searchNode = try ChildProcess.start(Binaries.farelens, searchArguments, environment: environment)
        try await searchNode.waitForOutput(containing: "farelens ready", limit: .seconds(60))
        try await waitUntil("the restarted search node answers (last: \(last))", limit: .seconds(30)) {
            let result = try? await ChildProcess.run(Binaries.farelensctl, search)
            last = result.map { "\($0.status) \($0.stderr)" } ?? "not run"
            return result?.status == 0
        }
    }

    @Test("a consumer killed between its effect and its acknowledgement while events keep coming: after its restart every durable event is applied exactly once (inbox), none lost")
    func consumerKilledUnderLoad() async throws {
        let server = try await TestNATSServer.start()
        defer { server.kill() }
        let dataDirectory = Self.scratchDirectory() + "/consumer"
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        var settings = NATSSettings(urls: [server.url], namespace: "crash")
        settings.heartbeat = .milliseconds(500)
        var busConfiguration = BusConfiguration()
        busConfiguration.nodeName = "publisher"
        let bus = MessageBus(configuration: busConfiguration)
        let publisher = try await NATSTransport.connect(bus: bus, settings: settings, identity: testIdentity("publisher"), logger: quietLogger())
        bus.attach(publisher)
        let running = Task { try await publisher.run() }
        defer { running.cancel() }

        let arguments = ["consume", "--nats-url", server.url, "--nats-namespace", "crash", "--nats-ack-wait-ms", "1000", "--name", "consumer", "--data-dir", dataDirectory]
        var consumer = try ChildProcess.start(Binaries.testNode, arguments + ["--hold-after", "30"])
        defer { consumer.kill() }
        try await consumer.waitForOutput(containing: "joined")
        try await waitUntil("the publisher heard the consumer") { publisher.knownNodes["consumer"] != nil }

        let count = 200
        let publishing = Task { for sequence in 1 ... count { try await bus.publish(PriceDropped(route: "LIS-JFK", sequence: sequence)) } }
        // Event 30's effect is committed and not acknowledged: the kill comes while events are still being published.
        try await consumer.waitForOutput(containing: "holding 30")
        consumer.kill()
        try await publishing.value

        consumer = try ChildProcess.start(Binaries.testNode, arguments)
        let database = try DatabaseQueue(path: dataDirectory + "/test-consumer.sqlite")
        try await waitUntil("every event applied after the restart") {
            let applied = try? await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT sequence) FROM effect") }
            return applied == count && consumer.output.get().contains("redelivered 30, skipped")
        }
        consumer.kill()
        let effects = try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, COUNT(*) AS times FROM effect GROUP BY sequence ORDER BY sequence")
                .map { [$0["sequence"] as Int: $0["times"] as Int] }
        }
        #expect(effects == (1 ... count).map { [$0: 1] }, "each event's effect happened exactly once")
    }
}
#endif
