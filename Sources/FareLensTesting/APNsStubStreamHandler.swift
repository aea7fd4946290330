import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// One HTTP/2 stream of the stub, seen as HTTP/1 parts.
/// Not Sendable: its state lives on the stream channel's event loop. A request with a provider token the stub
/// knows is answered there at once; one with a new token is verified on the pool and its answer comes back in a `NIOLoopBound`.
final class APNsStubStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let stub: APNsStub
    private var head: HTTPRequestHead?
    private var body = Data()

    init(stub: APNsStub) { self.stub = stub }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(let buffer):
            body.append(contentsOf: buffer.readableBytesView)
        case .end:
            guard let head else { return }
            let body = body
            // A token verified before: answered here, on the stream's loop, with no hop to the pool.
            if let (reply, index) = stub.answerWithKnownToken(method: head.method, path: head.uri, headers: head.headers, body: body) {
                respond(reply, id: head.headers.first(name: "apns-id"), context: context) { [stub] heard in
                    if !heard { stub.markUnheard(index) }
                }
                return
            }
            let loop = context.eventLoop
            let bound = NIOLoopBound((self, context), eventLoop: loop)
            Task { [stub] in
                let (reply, index) = await stub.answer(method: head.method, path: head.uri, headers: head.headers, body: body)
                loop.execute {
                    let (handler, context) = bound.value
                    handler.respond(reply, id: head.headers.first(name: "apns-id"), context: context) { [stub] heard in
                        if !heard { stub.markUnheard(index) }
                    }
                }
            }
        }
    }

    /// Writes `reply`; `written` learns whether its end reached an open stream.
    private func respond(_ reply: Reply, id: String?, context: ChannelHandlerContext, written: @escaping @Sendable (Bool) -> Void) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { written((try? $0.get()) != nil) }
        var headers = HTTPHeaders()
        headers.add(name: "apns-id", value: id ?? UUID().uuidString)
        switch reply {
        case .ok:
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .ok, headers: headers))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        case .error(let status, let reason, let timestamp):
            var json = #"{"reason":"\#(reason)""#
            if let timestamp { json += #","timestamp":\#(timestamp)"# }
            json += "}"
            headers.add(name: "content-type", value: "application/json")
            let buffer = ByteBuffer(string: json)
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: .init(statusCode: status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
        case .resetStream:
            // Closing a stream channel before its response resets the stream (RST_STREAM CANCEL).
            context.close(promise: nil)
            promise.succeed()
        case .hang:
            promise.succeed()
        }
    }

    private typealias Reply = APNsStub.Reply
}
