import AsyncHTTPClient
import Configuration
import Crypto
import FareLensBus
import FareLensGateway
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensTesting
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// The two shapes the gateway is tested in: everything in one node, or the
/// gateway in a node of its own reaching the services over the socket.
enum GatewayShape: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneProcess = "one node"
    case split = "gateway in its own node, over the socket"
    var description: String { rawValue }
}

/// Real nodes hosting the real services and gateway, in a temporary data
/// directory, with the gateway's clocks in the test's hands.
final class GatewayHarness: Sendable {
    let shape: GatewayShape
    let dataDirectory: String
    /// What the gateway reads as real time (access tokens).
    let clock: ManualWallClock
    /// The rate limits' monotonic seconds.
    let monotonic = Locked<Double>(1_000)
    /// PEM files of the session keys: the first signs.
    let keyFiles: [String]
    let port = Locked<Int?>(nil)
    private let nodes = Locked<[Node]>([])

    /// The gateway's node's bus: what a test asks the services directly (without the gateway's rate limit).
    var gatewayBus: MessageBus { nodes.get().last!.bus }
    private let tasks = Locked<[Task<Void, any Error>]>([])
    /// Whether this harness holds one of ``HarnessSlots``.
    private let holdsSlot = Locked(false)
    let settings: [String: String]

    init(shape: GatewayShape, dataDirectory: String? = nil, keyFiles: [String]? = nil, clock: ManualWallClock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))), settings: [String: String] = [:]) throws {
        self.shape = shape
        self.dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("farelens-gateway-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: self.dataDirectory, withIntermediateDirectories: true)
        self.clock = clock
        self.settings = settings
        if let keyFiles {
            self.keyFiles = keyFiles
        } else {
            let path = self.dataDirectory + "/session-key.pem"
            try P256.Signing.PrivateKey().pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
            self.keyFiles = [path]
        }
    }

    deinit { giveBackSlot() }

    /// Starts the nodes and waits until the gateway listens; if they do not,
    /// stops what started before throwing.
    func start() async throws {
        await HarnessSlots.shared.take()
        holdsSlot.set(true)
        do {
            try await startNodes()
        } catch {
            try? await stop()
            throw error
        }
    }

    private func startNodes() async throws {
        let gatewayDescriptor = GatewayEntry.descriptor(
            now: { [clock] in clock.now() }, monotonicSeconds: { [monotonic] in monotonic.get() }, onListening: { [port] bound in port.set(bound) })
        let catalog = ServiceCatalog.all.filter { $0.name != "gateway" } + [gatewayDescriptor]
        let everyService = "analytics,subscription,search,scoring,watchlist,alerts"
        let socket = dataDirectory + "/hub.sock"
        switch shape {
        case .oneProcess:
            try await launch(configuration(services: "all", directory: dataDirectory + "/node", listen: socket), catalog: catalog)
        case .split:
            try await launch(configuration(services: everyService, directory: dataDirectory + "/hub", listen: socket), catalog: catalog)
            var gateway = try configuration(services: "gateway", directory: dataDirectory + "/edge", listen: nil)
            gateway.connectPath = socket
            gateway.nodeName = "edge"
            try await launch(gateway, catalog: catalog)
        }
        try await withTimeLimit("the gateway listened", limit: Self.startLimit) {
            while self.port.get() == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        // A gateway on its own node reaches the services once its spoke has joined the hub
        // and learnt their routes; until then it answers 503 with Retry-After, as it should.
        let edge = nodes.get().last!
        try await withTimeLimit("the gateway's node reached every service", limit: Self.startLimit) {
            for probe in Self.reachabilityProbes {
                while true {
                    do {
                        try await probe(edge.bus)
                        break
                    } catch let error as BusError where error.kind == .remote {
                        break
                    } catch {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
        }
    }

    /// One request to each service the gateway calls; any answer, even an error of the service's own, means it is reachable.
    static let reachabilityProbes: [@Sendable (MessageBus) async throws -> Void] = [
        { bus in _ = try await bus.request(GetEntitlementsRequest(), timeout: .milliseconds(500)) },
        { bus in _ = try await bus.request(ListWatchlistsRequest(), timeout: .milliseconds(500)) },
        { bus in _ = try await bus.request(AirportLookupRequest(), timeout: .milliseconds(500)) },
        { bus in _ = try await bus.request(DealFeedRequest(), timeout: .milliseconds(500)) },
        { bus in _ = try await bus.request(AlertSettingsRequest(), timeout: .milliseconds(500)) },
    ]

    private func configuration(services: String, directory: String, listen: String?) throws -> NodeConfiguration {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        let entries = [
            "gateway.listen": "127.0.0.1:0", "gateway.signingKeyFiles": keyFiles.joined(separator: ","), "subscription.bcryptCost": "4",
            "search.sweep.intervalSeconds": "0",
        ].merging(settings) { _, new in new }
        for (key, value) in entries { values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false) }
        var configuration = try NodeConfiguration(reader: ConfigReader(provider: InMemoryProvider(values: values)))
        configuration.services = services
        configuration.dataDirectory = directory
        configuration.nodeName = services == "gateway" ? "edge" : "hub"
        configuration.listenPath = listen
        return configuration
    }

    private func launch(_ configuration: NodeConfiguration, catalog: [ServiceDescriptor]) async throws {
        var logger = Logger(label: "gateway-test")
        logger.logLevel = .critical
        let node = try Node(configuration: configuration, catalog: catalog, logger: logger)
        let ready = Locked(false)
        let failure = Locked<String?>(nil)
        let task = Task {
            do {
                try await node.run(handleSignals: false) { _ in ready.set(true) }
            } catch {
                failure.set("\(error)")
                throw error
            }
        }
        nodes.update { $0.append(node) }
        tasks.update { $0.append(task) }
        // Polled, so the time limit can end the wait; a node that fails to start ends it at once with its error.
        try await withTimeLimit("the node \(configuration.nodeName) was ready", limit: Self.startLimit) {
            while !ready.get() {
                if let failure = failure.get() { throw NodeDidNotStart(reason: failure) }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
    }

    /// A bound against hangs while nodes start (never a timing assertion): the heavy
    /// phase's processes share the two cores with them.
    static let startLimit: Duration = .seconds(60)

    /// Stops the nodes, the gateway's first, and gives back the harness's slot.
    func stop() async throws {
        defer { giveBackSlot() }
        let running = nodes.get()
        let started = tasks.get()
        nodes.set([])
        tasks.set([])
        port.set(nil)
        for node in running.reversed() { await node.shutdown() }
        var failure: (any Error)?
        for task in started {
            do { try await task.value } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    private func giveBackSlot() {
        var held = false
        holdsSlot.update { slot in
            held = slot
            slot = false
        }
        if held { Task { await HarnessSlots.shared.giveBack() } }
    }

    /// Runs `body` with the harness started, and stops it after, whatever happens.
    static func with(_ shape: GatewayShape, settings: [String: String] = [:], _ body: @Sendable (GatewayHarness, APIClient) async throws -> Void) async throws {
        let harness = try GatewayHarness(shape: shape, settings: settings)
        try await harness.start()
        do {
            try await body(harness, APIClient(port: harness.port.get()!))
        } catch {
            try await harness.stop()
            throw error
        }
        try await harness.stop()
    }
}

/// A node of the harness stopped before it was ready.
struct NodeDidNotStart: Error, CustomStringConvertible {
    let reason: String
    var description: String { "the node did not start: \(reason)" }
}

/// An HTTP client of the API (AsyncHTTPClient), JSON in and out.
struct APIClient: Sendable {
    let port: Int
    /// One client for every test, never shut down (a static is never deinitialised); it
    /// neither asks for nor inflates compressed bodies, so tests see what the gateway sends.
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow, decompression: .disabled))

    struct Reply: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let bytes: [UInt8]
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// The body as a JSON object, or empty.
        var json: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) ?? [:]
        }
        func string(_ key: String) -> String? { json[key] as? String }
        /// A problem's `code`.
        var code: String? { string("code") }
    }

    func send(
        _ method: HTTPMethod, _ path: String, token: String? = nil, json: String? = nil, headers extra: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await Self.client.execute(request, timeout: .seconds(20))
        let body = try await response.body.collect(upTo: 8 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, bytes: Array(body.readableBytesView))
    }

    /// Signs up `email` and returns the session's reply.
    func signUp(_ email: String, password: String = "correct horse battery", timeZone: String = "America/New_York", extra: String = "") async throws -> Reply {
        try await send(.POST, "/v1/auth/signup", json: #"{"email":"\#(email)","password":"\#(password)","time_zone":"\#(timeZone)"\#(extra)}"#)
    }
}
