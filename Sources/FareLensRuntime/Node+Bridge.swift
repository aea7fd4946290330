import FareLensBus
import FareLensMessages
import FareLensNATS
import FareLensServiceKit
import FareLensWire
import Foundation
import Logging
import ServiceLifecycle

extension Node {
    /// What joins this node to others: the bridge end (``makeBridge(servicesReady:bridgeReady:)``)
    /// and, with `bus.transport = nats`, the NATS transport beside it (the
    /// socket then serves local admin clients such as `farelensctl`).
    func makeTransports(servicesReady: ReadinessBoard, bridgeReady: ReadinessBoard) async throws -> [any Service] {
        let (bridge, hub) = try makeBridge(servicesReady: servicesReady, bridgeReady: bridgeReady)
        guard configuration.transport == .nats, let settings = configuration.nats else { return [bridge] }
        #if NATS
        let transport: NATSTransport
        do {
            transport = try await NATSTransport.connect(bus: bus, settings: settings, identity: nodeIdentity(), logger: logger) { bridgeReady.markReady("nats") }
        } catch {
            throw ConfigurationError.required(key: error.key ?? "nats.urls", error.message)
        }
        bus.attach(transport)
        // farelensctl on this node's socket reaches the whole namespace.
        hub?.relayBeyond(transport)
        return [bridge, StartsWhenReady(servicesReady: servicesReady, inner: transport) {}]
        #else
        _ = (settings, hub)  // unreachable: the configuration refuses `nats` in a build without it
        throw ConfigurationError.required(key: "bus.transport", NATSError.notBuilt.message)
        #endif
    }

    /// This node as the mesh sees it.
    func nodeIdentity() -> NodeIdentity {
        var identity = NodeIdentity(
            nodeName: configuration.nodeName, softwareVersion: FareLensVersion.current,
            // Real time, not the injected clock: uptime is the process's, also in a fast-forwarded demo.
            startedAtUnixMs: Int64(Date().timeIntervalSince1970 * 1000)
        )
        identity.services = services.map(\.name)
        return identity
    }

    /// The bridge end this node runs: a spoke when told `--connect`, a hub
    /// (listening on the configured socket) otherwise. The hub also answers
    /// the admin address.
    func makeBridge(servicesReady: ReadinessBoard, bridgeReady: ReadinessBoard) throws -> (service: any Service, hub: BridgeHub?) {
        var bridge = BridgeConfiguration(socketPath: configuration.effectiveSocketPath)
        bridge.limits = WireLimits(
            maxFrameBytes: configuration.maxFrameBytes,
            maxInflatedBytes: configuration.maxInflatedBytes,
            compressionThreshold: configuration.compressionThreshold,
            maxUnwrittenBytes: configuration.maxUnwrittenBytes
        )
        bridge.socketGroup = configuration.socketGroup
        if let allowed = configuration.allowedUIDs { bridge.allowedUIDs = allowed }
        if let admins = configuration.adminUIDs { bridge.adminUIDs = admins }
        bridge.durableBacklog = configuration.durableBacklog
        // Hold as many durable events from a peer as a peer with this configuration may have unacknowledged (decision 0009).
        bridge.inboundDurableEvents = configuration.durableBacklog
        bridge.metricsFactory = metricsFactory
        // Durable events survive a crash of this node (docs/bus.md).
        bridge.outboxJournal = try OutboxJournal(path: configuration.outboxJournalPath, logger: logger)
        let identity = nodeIdentity()
        bus.registerEventTypes(MessageCatalog.events)
        if configuration.isSpoke {
            let spoke = BridgeSpoke(bus: bus, configuration: bridge, identity: identity, logger: logger)
            bus.attach(spoke)
            return (StartsWhenReady(servicesReady: servicesReady, inner: spoke) { bridgeReady.markReady("bridge") }, nil)
        }
        let hub = BridgeHub(bus: bus, configuration: bridge, identity: identity, logger: logger) {
            bridgeReady.markReady("bridge")
        }
        bus.attach(hub)
        try bus.serve(MeshStatusRequest.self) { _, _ in hub.meshStatus() }
        try bus.serve(ForgetNodeRequest.self) { request, _ in
            var response = ForgetNodeResponse()
            response.droppedDurableEvents = UInt64(try hub.forget(request.nodeName))
            return response
        }
        return (StartsWhenReady(servicesReady: servicesReady, inner: hub) {}, hub)
    }

    /// How the ready line describes the bridge.
    var bridgeDescription: String {
        let socket = configuration.isSpoke ? "connect:\(configuration.effectiveSocketPath)" : "listen:\(configuration.effectiveSocketPath)"
        guard configuration.transport == .nats, let nats = configuration.nats else { return socket }
        return "\(socket) nats:\(nats.urls.joined(separator: ","))/\(nats.namespace)"
    }
}

/// Starts the bridge only once every hosted service has registered its
/// handlers and subscriptions, so the first hello tells the whole truth.
struct StartsWhenReady: Service {
    let servicesReady: ReadinessBoard
    let inner: any Service
    let started: @Sendable () -> Void

    func run() async throws {
        await servicesReady.waitUntilAllReady()
        guard !Task.isCancelled else { return }
        started()
        try await inner.run()
    }
}
