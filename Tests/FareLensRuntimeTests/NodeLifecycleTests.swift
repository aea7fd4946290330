import Configuration
import FareLensBus
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Logging
import Testing

@Suite("Node lifecycle")
struct NodeLifecycleTests {
    static func configuration(services: String = "all") throws -> NodeConfiguration {
        var configuration = NodeConfiguration()
        configuration.services = services
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-node-\(UUID().uuidString)").path
        configuration.nodeName = "test-node"
        // The gateway on a port the system chooses: tests run side by side.
        configuration.reader = ConfigReader(provider: InMemoryProvider(values: [AbsoluteConfigKey(ConfigKey("gateway.listen")): ConfigValue(.string("127.0.0.1:0"), isSecret: false)]))
        return configuration
    }

    @Test("A node runs all six services and the gateway, reports ready naming each, and stops cleanly")
    func runsAllSix() async throws {
        let configuration = try Self.configuration()
        let node = try Node(configuration: configuration, catalog: ServiceCatalog.all, logger: Logger(label: "test"))
        let ready = Gate()
        let report = Locked<NodeReadyReport?>(nil)
        let running = Task {
            try await node.run(handleSignals: false) { value in
                report.set(value)
                ready.open()
            }
        }
        await ready.wait()
        await node.shutdown()
        try await running.value
        let services = try #require(report.get()).services
        #expect(Set(services) == ["search", "watchlist", "scoring", "alerts", "subscription", "analytics", "gateway"])
        #expect(report.get()?.line.hasPrefix("farelens ready: node=test-node") == true)
        for name in services {
            let queue = try DatabaseQueue(path: "\(configuration.dataDirectory)/\(name).sqlite")
            let open = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM service_run WHERE stoppedAt IS NULL") }
            #expect(open == 0, "\(name) recorded its clean stop")
        }
    }

    @Test("Graceful shutdown lets an in-flight request finish, then refuses new ones")
    func gracefulDrain() async throws {
        let gate = Gate()
        let slow = ServiceDescriptor(name: "slow", address: SlowRequest.address) { _ in GatedSlowService(gate: gate) }
        let node = try Node(configuration: try Self.configuration(services: "slow"), catalog: [slow], logger: Logger(label: "test"))
        let ready = Gate()
        let running = Task { try await node.run(handleSignals: false) { _ in ready.open() } }
        await ready.wait()
        // A deadline far beyond the test's own steps: this test is about the drain, and in a full parallel run the
        // process is busy enough at start that a 5 s deadline ran out before the test opened the gate (2026-11-28).
        let inFlight = Task { try await node.bus.request(SlowRequest(label: "in flight"), timeout: .seconds(120)) }
        try await gate.waitForArrivals(1)
        let stopping = Task { await node.shutdown() }
        while node.bus.isAccepting(at: SlowRequest.address) { await Task.yield() }
        let refused = await busErrorKind { try await node.bus.request(SlowRequest(label: "late")) }
        #expect(refused == .serviceUnavailable)
        gate.open()
        #expect(try await inFlight.value.text == "in flight")
        await stopping.value
        try await running.value
    }

    @Test("On graceful shutdown the bus hears of it before any service stops, so consumers' unfinished durable events stay unacknowledged")
    func busHearsOfShutdownFirst() async throws {
        let seen = Locked<Bool?>(nil)
        let observer = ServiceDescriptor(name: "observer", address: "observer") { context in ShutdownObserver(bus: context.bus, seen: seen) }
        let node = try Node(configuration: try Self.configuration(services: "observer"), catalog: [observer], logger: Logger(label: "test"))
        let ready = Gate()
        let running = Task { try await node.run(handleSignals: false) { _ in ready.open() } }
        await ready.wait()
        #expect(!node.bus.isShuttingDown)
        await node.shutdown()
        try await running.value
        #expect(seen.get() == true, "the service's background work was stopped before the bus knew of the shutdown")
    }

    @Test("A service's background work starts once every service of the node has subscribed: a durable event published at the start of one reaches a service built after it")
    func backgroundWorkAfterEveryoneSubscribed() async throws {
        let received = Locked<[PriceDropped]>([])
        let eager = ServiceDescriptor(name: "eager", address: "eager") { context in EagerPublisher(bus: context.bus) }
        let late = ServiceDescriptor(name: "late", address: "late") { context in
            // Slow to build (100 ms, once): without the wait, the eager service's run() has published by now.
            usleep(100_000)
            return LateSubscriber(subscription: context.bus.subscribe(PriceDropped.self), received: received)
        }
        let node = try Node(configuration: try Self.configuration(services: "eager,late"), catalog: [eager, late], logger: Logger(label: "test"))
        let running = Task { try await node.run(handleSignals: false) { _ in } }
        try await waitUntil("the late service received the eager one's first event", limit: .seconds(60)) { !received.get().isEmpty }
        await node.shutdown()
        try await running.value
        #expect(received.get() == [PriceDropped(route: "start", sequence: 1)])
    }

    @Test("A data directory that cannot be created stops start-up with a named error")
    func badDataDirectory() async throws {
        var configuration = try Self.configuration()
        configuration.dataDirectory = "/proc/farelens-cannot-exist"
        let node = try Node(configuration: configuration, catalog: ServiceCatalog.all, logger: Logger(label: "test"))
        await #expect(throws: StoreError.self) { try await node.run(handleSignals: false) }
    }
}

/// A service whose handler waits on a gate, to hold a request in flight.
struct GatedSlowService: ServiceBehaviour {
    let gate: Gate
    func register(on bus: MessageBus) throws {
        try bus.serve(SlowRequest.self) { [gate] request, _ in
            await gate.wait()
            return EchoResponse(text: request.label)
        }
    }
}

/// A service whose background work runs until it is stopped and records
/// whether the bus knew of the shutdown by then.
struct ShutdownObserver: ServiceBehaviour {
    let bus: MessageBus
    let seen: Locked<Bool?>
    func run() async throws {
        try? await Task.sleep(for: .seconds(60))  // ends when the service is stopped (bounded: the test would fail, not hang)
        seen.set(bus.isShuttingDown)
    }
}

/// Publishes one durable event as soon as its background work starts.
struct EagerPublisher: ServiceBehaviour {
    let bus: MessageBus
    func run() async throws {
        try await bus.publish(PriceDropped(route: "start", sequence: 1))
    }
}

/// Records what its subscription (made when it is built) receives.
struct LateSubscriber: ServiceBehaviour {
    let subscription: EventSubscription<PriceDropped>
    let received: Locked<[PriceDropped]>
    func run() async throws {
        for await delivery in subscription { received.update { $0.append(delivery.event) } }
    }
}

func busErrorKind<T>(_ body: () async throws -> T) async -> BusError.Kind? {
    do {
        _ = try await body()
        return nil
    } catch {
        return (error as? BusError)?.kind
    }
}
