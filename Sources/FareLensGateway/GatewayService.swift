import FareLensBus
import FareLensMessages
import FareLensServiceKit
import Foundation
import Hummingbird
import HummingbirdTLS
import NIOSSL
import Logging
import NIOCore
import ServiceLifecycle

/// The gateway's behaviour in a node: an HTTP server (Hummingbird 2) whose
/// routes are ``GatewayAPI``'s operations, run until the node's graceful
/// shutdown (it stops accepting, finishes what is in flight, then stops).
final class GatewayService: ServiceBehaviour {
    let bus: MessageBus
    let settings: GatewaySettings
    let loadedKeys: SessionKeys.Loaded
    /// TLS 1.3 when configured; plain HTTP otherwise.
    let tls: TLSConfiguration?
    let logger: Logger
    let now: @Sendable () -> Date
    let monotonicSeconds: @Sendable () -> Double
    let onListening: @Sendable (Int) -> Void
    /// Made with the service, before the node says it is ready: `/metrics`
    /// shows the counters known in advance from then on. Made in `run()`, a
    /// scrape right after "farelens ready" could come before them
    /// (`MetricsExpositionProcessTests.oneNodeAtStart`, a loaded run).
    let metrics = GatewayMetrics()

    init(
        bus: MessageBus, settings: GatewaySettings, keys: SessionKeys.Loaded, tls: TLSConfiguration? = nil, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        monotonicSeconds: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.onListening = onListening
        self.bus = bus
        self.settings = settings
        self.loadedKeys = keys
        self.tls = tls
        self.logger = logger
        self.now = now
        self.monotonicSeconds = monotonicSeconds
    }

    /// Serves HTTP until the task is cancelled or the node shuts down.
    func run() async throws {
        let keys = try await SessionKeys.make(loadedKeys)
        let api = GatewayAPI(
            bus: bus, keys: keys, settings: settings,
            signInLimiter: RateLimiter(burst: settings.signInBurst, perSecond: settings.signInPerMinute / 60, now: monotonicSeconds),
            metrics: metrics, apple: settings.apple.map { AppleIdentityVerifier(settings: $0, now: now, logger: logger) }, now: now,
            rates: ExchangeRatesCache(now: monotonicSeconds), currencies: UserCurrencies(now: monotonicSeconds),
            trackRecords: RouteTrackRecords(now: monotonicSeconds))
        let authentication = AuthenticationMiddleware(
            keys: keys, settings: settings, limiter: RateLimiter(burst: settings.userBurst, perSecond: settings.userPerSecond, now: monotonicSeconds),
            metrics: metrics, now: now)
        let bodyLimit = settings.maxBodyBytes
        let router = Router(context: GatewayRequestContext.self)
        let routes = RouteCatalogBox()
        router.add(middleware: ProblemMiddleware(logger: logger, metrics: metrics, routes: routes))
        router.add(middleware: BodyLimitMiddleware(limit: bodyLimit))
        router.get("openapi.yaml") { _, _ in
            guard let document = OpenAPIDocument.text else {
                throw Problem(.internalServerError, code: "internal", "the OpenAPI document is missing from this build")
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/yaml"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document)))
        }
        router.get("healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        var catalog = api.register(on: router, authentication: authentication)
        catalog.add(.get, "openapi.yaml")
        catalog.add(.get, "healthz")
        routes.set(catalog)
        let port = settings.port
        let host = settings.host
        let scheme = tls == nil ? "http" : "https"
        let app = Application(
            router: router,
            server: try tls.map { try .tls(.http1(), tlsConfiguration: $0) } ?? .http1(),
            configuration: .init(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { [self] channel in
                let bound = channel.localAddress?.port ?? port
                self.onListening(bound)
                self.logger.notice("gateway listening", metadata: ["url": "\(scheme)://\(host):\(bound)", "openapi": "\(scheme)://\(host):\(bound)/openapi.yaml"])
            },
            logger: logger
        )
        // The server stops the way Hummingbird means it to: by a graceful shutdown (it stops accepting and finishes
        // what is in flight), not by cancellation, which it reports at error level ("Waiting on child channel:
        // CancellationError()", then "Server shutdown error: Already closed"). The node cancels a service's work
        // once the bus has drained; here that cancellation becomes a graceful shutdown of the server's own group,
        // which the run then waits for (bounded by the requests in flight, each by its bus deadline).
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let serving = Task { try await group.run() }
        do {
            try await withTaskCancellationHandler {
                try await serving.value
            } onCancel: {
                Task { await group.triggerGracefulShutdown() }
            }
        } catch {
            let failure = ListenError(server: "the gateway", keys: "gateway.listen, --http-listen", host: host, port: port, cause: error)
            logger.critical("\(failure)")
            throw failure
        }
    }
}

/// Sets each request's body limit from `gateway.maxBodyBytes`.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let limit: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.bodyLimit = limit
        return try await next(request, context)
    }
}
