import Foundation
import NIOCore
import NIOHTTP1

/// Collects one request at a time, asks the ``StubHTTPServer`` for its
/// answer and writes it (after its delay, on the event loop; never blocks).
final class StubHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let server: StubHTTPServer
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(server: StubHTTPServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let requestHead = head else { return }
            head = nil
            let request = StubRequest(
                method: requestHead.method.rawValue, uri: requestHead.uri,
                headers: requestHead.headers.map { (name: $0.name, value: $0.value) }, body: Data(body)
            )
            let response = server.answer(request)
            let keepAlive = requestHead.isKeepAlive
            guard response.delivery != .never else { return }
            if response.delay > .zero {
                context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(response.delay)) {
                    self.write(response, keepAlive: keepAlive, context: context)
                }
            } else {
                write(response, keepAlive: keepAlive, context: context)
            }
        }
    }

    private func write(_ response: StubResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        if response.delivery == .headOnly {
            // Promise a body that never comes.
            headers.replaceOrAdd(name: "Content-Length", value: String(max(1, response.body.count)))
        } else {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        guard response.delivery == .complete else {
            context.flush()
            return
        }
        if !response.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: response.body)))), promise: nil)
        }
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        if !keepAlive {
            done.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
