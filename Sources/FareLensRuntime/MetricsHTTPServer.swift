import FareLensServiceKit
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// `--metrics-listen HOST:PORT`: a small HTTP/1.1 server answering
/// `GET /metrics` with the node's Prometheus text (`text/plain;
/// version=0.0.4`, ``MetricsExposition``: every metric with its `# HELP`)
/// and 404 for any other path, for a Prometheus scraper.
/// Runs until graceful shutdown.
struct MetricsHTTPServer: Service {
    let host: String
    let port: Int
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    let bound: @Sendable (Int) -> Void

    /// - Parameter bound: called with the port once listening (useful with port 0).
    init(host: String, port: Int, registry: PrometheusCollectorRegistry, logger: Logger, bound: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.registry = registry
        self.logger = logger
        self.bound = bound
    }

    /// Binds `host:port` and lets it go: a ``ListenError`` now, before the
    /// node writes anything, for an address the server could not listen on.
    /// (Another process may still take the port before the server binds it;
    /// the server then stops the node with the same error.)
    static func probe(host: String, port: Int) async throws {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try await channel.close()
        } catch {
            throw ListenError(server: "the metrics endpoint", keys: "metrics.listen, --metrics-listen", host: host, port: port, cause: error)
        }
    }

    func run() async throws {
        let registry = self.registry
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.pipeline.configureHTTPServerPipeline().flatMap {
                        channel.pipeline.addHandler(MetricsHTTPHandler(registry: registry))
                    }
                }
                .bind(host: host, port: port).get()
        } catch {
            throw ListenError(server: "the metrics endpoint", keys: "metrics.listen, --metrics-listen", host: host, port: port, cause: error)
        }
        let actual = channel.localAddress?.port ?? port
        logger.info("metrics endpoint listening", metadata: ["address": "http://\(host):\(actual)/metrics"])
        bound(actual)
        try? await gracefulShutdown()  // safe: returns on shutdown or cancellation; either way the listener closes
        try? await channel.close()  // safe: closing an already closed listener is not an error worth reporting
    }
}

/// Answers one HTTP request at a time on a connection.
final class MetricsHTTPHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry

    init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let (status, body, type): (HTTPResponseStatus, [UInt8], String)
        if head.method == .GET || head.method == .HEAD, path == "/metrics" {
            (status, body, type) = (.ok, Array(MetricsExposition.text(of: registry).utf8), "text/plain; version=0.0.4; charset=utf-8")
        } else {
            (status, body, type) = (.notFound, Array("not found: only GET /metrics is served\n".utf8), "text/plain; charset=utf-8")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        let keepAlive = head.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
