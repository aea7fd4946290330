import Configuration
import FareLensBus
import FareLensServiceKit
import FareLensStore
import Logging
import ServiceLifecycle

/// One service running inside a node, as a swift-service-lifecycle
/// `Service`: opens its database, registers on the bus, reports ready,
/// starts its background work once every service of the node is ready, and
/// on graceful shutdown stops accepting, drains in-flight requests, ends its
/// background work and closes its database — in that order.
struct HostedService: Service {
    let descriptor: ServiceDescriptor
    let bus: MessageBus
    let dataDirectory: String
    let nodeName: String
    let clock: any WallClock
    let readiness: ReadinessBoard
    let logger: Logger
    /// The node's whole configuration; the service reads its own section (its name) and the sections it owns (``ServiceContext/section(_:)``).
    let configuration: ConfigReader
    let databases: NodeDatabases
    /// Returns once the node's bridge (and NATS transport) has started and joined (``ServiceContext/joined``).
    let joined: @Sendable () async -> Void

    func run() async throws {
        var logger = self.logger
        logger[metadataKey: "service"] = "\(descriptor.name)"
        let database = try ServiceDatabase.open(
            service: descriptor.name,
            directory: dataDirectory,
            migrations: ServiceRuns.migrations(before: descriptor.migrations)
        )
        databases.add(database)
        let run = try ServiceRuns.recordStart(in: database, node: nodeName, at: clock.now())
        let behaviour = try descriptor.make(ServiceContext(
            bus: bus, database: database, logger: logger, clock: clock, configuration: configuration.scoped(to: ConfigKey(descriptor.name)),
            node: configuration, joined: joined))
        try behaviour.register(on: bus)
        logger.debug("service ready", metadata: ["address": "\(descriptor.address)"])
        readiness.markReady(descriptor.name)

        let serviceLogger = logger
        let stopsNode = descriptor.runFailureStopsNode
        let (failed, failure) = AsyncStream.makeStream(of: (any Error).self, bufferingPolicy: .bufferingNewest(1))
        let fatal = await withDiscardingTaskGroup { group -> (any Error)? in
            group.addTask { [readiness] in
                // Background work (outbox relays, subscription loops, schedules) starts once every service of the
                // node has registered and subscribed: an event published at start reaches every subscriber here.
                await readiness.waitUntilAllReady()
                do { try await behaviour.run() } catch is CancellationError {} catch {
                    serviceLogger.error("background work failed", metadata: ["error": "\(error)"])
                    if stopsNode { failure.yield(error) }
                }
                failure.finish()
            }
            // Graceful shutdown, or a failure that stops the node, whichever comes first.
            let fatal = await withTaskGroup(of: (any Error)?.self) { waiting -> (any Error)? in
                waiting.addTask {
                    try? await gracefulShutdown()
                    return nil
                }
                waiting.addTask {
                    for await error in failed { return error }
                    // The background work ended without failing: only a graceful shutdown ends the service.
                    try? await Task.sleep(for: .seconds(86_400 * 365))  // safe: cancelled as soon as the other waiter returns
                    return nil
                }
                let first = await waiting.next() ?? nil
                waiting.cancelAll()
                return first
            }
            logger.debug("draining")
            await bus.drain(descriptor.address)
            group.cancelAll()
            return fatal
        }
        try ServiceRuns.recordStop(in: database, run: run, at: clock.now())
        databases.remove(descriptor.name)
        try database.close()
        logger.debug("service stopped")
        if let fatal { throw fatal }
    }
}
