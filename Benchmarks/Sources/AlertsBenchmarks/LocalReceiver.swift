import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 receiver on 127.0.0.1 that answers every request 200
/// with an empty body once it has read it: the webhook endpoint of the
/// delivery benchmark (it verifies nothing, so it costs the sender little).
final class LocalReceiver: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    /// Starts on a free port.
    static func start() async throws -> (LocalReceiver, port: Int) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(OK())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (LocalReceiver(channel: channel), channel.localAddress?.port ?? 0)
    }

    func stop() async { try? await channel.close() }

    private final class OK: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "content-length", value: "0")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
