import FareLensBus
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import FareLensWire
import Foundation
import GRDB
import Logging

/// A real node listening on a fresh socket, hosting a `writer` service
/// (whose database gains a row every few milliseconds) and an `echo`
/// service, for the node-admin tests.
struct AdminTestNode {
    let node: Node
    let socket: String
    let running: Task<Void, any Error>

    static func start(name: String = "hub", metricsListen: Bool = false, logger: Logger = quietLogger(), clock: any WallClock = SystemWallClock()) async throws -> AdminTestNode {
        var configuration = NodeConfiguration()
        configuration.services = "writer,echo"
        let socket = temporarySocketPath()
        configuration.dataDirectory = socket.replacingOccurrences(of: "/bus.sock", with: "/data")
        configuration.listenPath = socket
        configuration.nodeName = name
        if metricsListen { configuration.metricsListen = ("127.0.0.1", 0) }
        let node = try Node(configuration: configuration, catalog: [WriterService.descriptor, EchoService.descriptor], logger: logger, clock: clock)
        let ready = Gate()
        let running = Task { try await node.run(handleSignals: false) { _ in ready.open() } }
        try await withTimeLimit("the node is ready") { await ready.wait() }
        return AdminTestNode(node: node, socket: socket, running: running)
    }

    func stop() async throws {
        await node.shutdown()
        try await running.value
    }
}

/// Joins `socket` as an admin client (or as a node) and runs `body` with
/// its bus once `address` is reachable.
func withPeer<T: Sendable>(
    _ socket: String, role: NodeIdentity.Role = .admin, reaching address: ServiceAddress,
    _ body: @escaping @Sendable (MessageBus) async throws -> T
) async throws -> T {
    var busConfiguration = BusConfiguration()
    busConfiguration.nodeName = "peer-\(UInt32.random(in: 0 ... .max))"
    let bus = MessageBus(configuration: busConfiguration, logger: quietLogger())
    let spoke = BridgeSpoke(bus: bus, configuration: BridgeConfiguration(socketPath: socket), identity: testIdentity(busConfiguration.nodeName, role: role), logger: quietLogger())
    bus.attach(spoke)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            try await spoke.run()
            return nil
        }
        try await waitUntil("the peer reaches \(address)") { spoke.hosts(address) }
        let result = try await withTimeLimit("the peer's requests") { try await body(bus) }
        group.cancelAll()
        return result
    }
}

/// A service whose background work inserts a row every 2 ms until stopped.
struct WriterService: ServiceBehaviour {
    let database: ServiceDatabase

    static var descriptor: ServiceDescriptor {
        var migrations = ServiceMigrations()
        migrations.register("create-row") { db in try db.create(table: "row") { $0.autoIncrementedPrimaryKey("id"); $0.column("text", .text) } }
        return ServiceDescriptor(name: "writer", address: "writer", migrations: migrations) { context in
            WriterService(database: context.database)
        }
    }

    func run() async throws {
        while !Task.isCancelled {
            try await database.writer.write { db in try db.execute(sql: "INSERT INTO row (text) VALUES ('x')") }
            try? await Task.sleep(for: .milliseconds(2))  // safe: pacing a background writer; ends when cancelled
        }
    }
}

/// Answers ``EchoRequest`` at `echo`.
struct EchoService: ServiceBehaviour {
    static var descriptor: ServiceDescriptor {
        ServiceDescriptor(name: "echo", address: EchoRequest.address) { _ in EchoService() }
    }

    func register(on bus: MessageBus) throws {
        try bus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
    }
}

/// The `remote_code` (or kind) a failed request gave.
func failureCode<T>(_ body: () async throws -> T) async -> String? {
    do {
        _ = try await body()
        return nil
    } catch let error as BusError {
        return error.remoteCode ?? error.kind.description
    } catch {
        return "\(error)"
    }
}

