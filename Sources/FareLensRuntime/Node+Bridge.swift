import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensWire
import Foundation
import Logging
import ServiceLifecycle

extension Node {
    /// The bridge end this node runs: a spoke when told `--connect`, a hub
    /// (listening on the configured socket) otherwise. The hub also answers
    /// the admin address.
    func makeBridge(servicesReady: ReadinessBoard, bridgeReady: ReadinessBoard) throws -> any Service {
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
        var identity = NodeIdentity(
            nodeName: configuration.nodeName, softwareVersion: FareLensVersion.current,
            // Real time, not the injected clock: uptime is the process's, also in a fast-forwarded demo.
            startedAtUnixMs: Int64(Date().timeIntervalSince1970 * 1000)
        )
        identity.services = services.map(\.name)
        bus.registerEventTypes(MessageCatalog.events)
        if configuration.isSpoke {
            let spoke = BridgeSpoke(bus: bus, configuration: bridge, identity: identity, logger: logger)
            bus.attach(spoke)
            return StartsWhenReady(servicesReady: servicesReady, inner: spoke) { bridgeReady.markReady("bridge") }
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
        return StartsWhenReady(servicesReady: servicesReady, inner: hub) {}
    }

    /// How the ready line describes the bridge.
    var bridgeDescription: String {
        configuration.isSpoke ? "connect:\(configuration.effectiveSocketPath)" : "listen:\(configuration.effectiveSocketPath)"
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
