import Configuration
public import FareLensServiceKit
import Foundation
public import FareLensBus
import FareLensStore
public import Logging
public import Prometheus
import ServiceLifecycle
import Synchronization
import UnixSignals

/// What a node says once every hosted service is ready.
public struct NodeReadyReport: Sendable {
    /// The node's name.
    public let nodeName: String
    /// The services it runs, in start order.
    public let services: [String]
    /// Process id.
    public let pid: Int32
    /// Time from `run()` to ready.
    public let startup: Duration
    /// `listen:PATH` or `connect:PATH`.
    public let bridge: String

    /// The one-line ready message printed by `farelens serve`.
    public var line: String {
        let ms = Double(startup.components.attoseconds) / 1e15 + Double(startup.components.seconds) * 1e3
        return "farelens ready: node=\(nodeName) pid=\(pid) services=\(services.joined(separator: ",")) startup=\(Int(ms.rounded()))ms bridge=\(bridge)"
    }
}

/// A process of the FareLens mesh: hosts the chosen services and its bus
/// under one `ServiceGroup`, with graceful shutdown on SIGTERM/SIGINT (stop
/// accepting, drain in-flight requests, close databases).
public final class Node: Sendable {
    /// The configuration it was started with.
    public let configuration: NodeConfiguration
    /// The services it hosts.
    public let services: [ServiceDescriptor]
    /// Its bus.
    public let bus: MessageBus
    /// Where its bus's and bridge's metrics are kept (and, in `farelens`,
    /// every swift-metrics metric of the process): what `/metrics` and
    /// `farelensctl metrics` show.
    public let metrics: PrometheusCollectorRegistry
    /// Its log level, changeable at run time (`farelensctl log-level`).
    public let logLevel: LogLevelControl
    let metricsFactory: PrometheusMetricsFactory
    let databases = NodeDatabases()
    let clock: any WallClock
    let logger: Logger
    private let group = Mutex<ServiceGroup?>(nil)
    private let stopRequested = Mutex(false)
    private let metricsPort = Mutex<Int?>(nil)

    /// Creates a node hosting the services that `configuration.services` selects from `catalog`.
    ///
    /// - Parameters:
    ///   - metrics: the registry its bus and bridge record into (a fresh one by default).
    ///   - logLevel: the control `logger` follows from now on; one starting at
    ///     `logger`'s level by default.
    /// - Throws: ``ConfigurationError`` for an unknown service name.
    public init(
        configuration: NodeConfiguration, catalog: [ServiceDescriptor], logger: Logger, clock: any WallClock = SystemWallClock(),
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), logLevel: LogLevelControl? = nil
    ) throws(ConfigurationError) {
        self.configuration = configuration
        self.services = try ServiceSelection.select(configuration.services, from: catalog)
        let control = logLevel ?? LogLevelControl(logger.logLevel)
        var logger = logger
        logger.handler = ControlledLogHandler(wrapping: logger.handler, control: control)
        self.logLevel = control
        self.metrics = metrics
        self.metricsFactory = PrometheusMetricsFactory(registry: metrics)
        var busConfiguration = BusConfiguration()
        busConfiguration.metricsFactory = metricsFactory
        busConfiguration.defaultDeadline = configuration.defaultDeadline
        busConfiguration.maxInFlightPerService = configuration.maxInFlightPerService
        busConfiguration.subscriberBufferSize = configuration.subscriberBufferSize
        busConfiguration.nodeName = configuration.nodeName
        self.bus = MessageBus(configuration: busConfiguration, logger: logger)
        self.clock = clock
        self.logger = logger
    }

    /// Runs until graceful shutdown completes.
    ///
    /// - Parameters:
    ///   - handleSignals: shut down gracefully on SIGTERM and SIGINT.
    ///   - onReady: called once, when every service has reported ready.
    /// - Throws: ``FareLensStore/StoreError`` for an unusable data directory,
    ///   or the first error a service fails with.
    public func run(handleSignals: Bool = true, onReady: @escaping @Sendable (NodeReadyReport) -> Void = { _ in }) async throws {
        let start = ContinuousClock.now
        // A metrics port in use is refused before anything is written (the data directory was made first).
        if let listen = configuration.metricsListen, listen.port != 0 { try await MetricsHTTPServer.probe(host: listen.host, port: listen.port) }
        try DataDirectory.prepare(configuration.dataDirectory)
        let readiness = ReadinessBoard(expecting: services.map(\.name))
        // Ready also waits for the metrics endpoint, when there is one, to listen.
        let bridgeReady = ReadinessBoard(expecting: ["bridge"] + (configuration.metricsListen == nil ? [] : ["metrics"]) + (configuration.transport == .nats ? ["nats"] : []))
        let hosted = services.map {
            HostedService(
                descriptor: $0, bus: bus, dataDirectory: configuration.dataDirectory,
                nodeName: configuration.nodeName, clock: clock, readiness: readiness, logger: logger,
                configuration: configuration.reader, databases: databases, joined: { await bridgeReady.waitUntilAllReady() }
            )
        }
        try serveNodeAdmin(databases: databases)
        let transports = try await makeTransports(servicesReady: readiness, bridgeReady: bridgeReady)
        let report: @Sendable () -> NodeReadyReport = { [configuration, services, bridgeDescription] in
            NodeReadyReport(nodeName: configuration.nodeName, services: services.map(\.name), pid: getpid(), startup: .now - start, bridge: bridgeDescription)
        }
        let announcer = ReadyAnnouncer(readiness: readiness, bridgeReady: bridgeReady) { onReady(report()) }
        // The bridge is listed first so it stops last: services drain (and
        // answer their remote callers) before connections close. The herald
        // is listed last so it hears of the shutdown first, before any
        // service's subscriptions go away.
        var groupConfiguration = ServiceGroupConfiguration(
            services: transports.map { .init(service: $0) } + [.init(service: announcer)] + hosted.map { .init(service: $0) } + [.init(service: ShutdownHerald(bus: bus))]
                + (metricsEndpoint(ready: bridgeReady).map { [.init(service: $0)] } ?? []),
            gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
            logger: logger
        )
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownGrace
        let serviceGroup = ServiceGroup(configuration: groupConfiguration)
        let stopEarly = group.withLock { current in
            current = serviceGroup
            return stopRequested.withLock { $0 }
        }
        if stopEarly { await serviceGroup.triggerGracefulShutdown() }
        try await serviceGroup.run()
    }

    /// The `/metrics` HTTP server, when `metrics.listen` is set.
    private func metricsEndpoint(ready: ReadinessBoard) -> MetricsHTTPServer? {
        configuration.metricsListen.map {
            MetricsHTTPServer(host: $0.host, port: $0.port, registry: metrics, logger: logger) { port in
                self.metricsPort.withLock { $0 = port }
                ready.markReady("metrics")
            }
        }
    }

    /// The port `/metrics` is served on once listening (the configured one,
    /// or the one the system chose for port 0); nil before or without it.
    public var metricsBoundPort: Int? { metricsPort.withLock { $0 } }

    /// Starts a graceful shutdown, as SIGTERM does.
    public func shutdown() async {
        let serviceGroup = group.withLock { current in
            stopRequested.withLock { $0 = true }
            return current
        }
        await serviceGroup?.triggerGracefulShutdown()
    }
}

/// Waits for every service to be ready, reports it, then idles until shutdown.
struct ReadyAnnouncer: Service {
    let readiness: ReadinessBoard
    let bridgeReady: ReadinessBoard
    let announce: @Sendable () -> Void

    func run() async throws {
        await readiness.waitUntilAllReady()
        await bridgeReady.waitUntilAllReady()
        guard !Task.isCancelled else { return }
        announce()
        try? await gracefulShutdown()
    }
}
