import BenchmarkHarness
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// The floor of any bridge that speaks docs/wire-protocol.md (issue #12):
// NIOEchoFloor's two event loops, plus the work the wire format itself asks
// of each side and nothing else. The answering process (this binary in
// `envelope-echo` mode) reads each frame (FrameCodec), parses the envelope
// (EnvelopeCoding), parses the airport lookup it carries, finds the answer
// in a dictionary of one airport, and serializes the response and its
// envelope into a frame. The caller serializes the lookup and its envelope
// into a frame, and parses the reply's frame, envelope and response; replies
// are matched to callers by correlation id. No bus, routing, task per
// request, deadlines, metrics or service: what the bridge takes beyond this
// is its own; what this takes beyond NIOEchoFloor is the format's.

/// Answers each REQUEST frame with a RESPONSE frame, as a node answering the
/// lookup must at the least; writes once per read burst, flushed in
/// `channelReadComplete`.
private final class EnvelopeEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private let limits = WireLimits()
    private let airports: [String: AirportLookupResponse]
    private var unread = ByteBuffer()
    private var replies = ByteBuffer()

    init(answer: AirportLookupResponse) { airports = [answer.airport.iataCode: answer] }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        unread.writeBuffer(&bytes)
        do {
            while let payload = try FrameCodec.decode(from: &unread, limits: limits) {
                WireTimeline.mark(.frameRead)
                let request = try EnvelopeCoding.decode(payload)
                let lookup = try AirportLookupRequest(wireEncoded: Array(request.payload))
                var reply = WireEnvelope()
                reply.kind = .response
                reply.correlationID = request.correlationID
                reply.payload = Data(try airports[lookup.code, default: AirportLookupResponse()].wireEncoded())
                FrameCodec.encode(bytes: try reply.serializedBytes(), limits: limits, into: &replies)
            }
        } catch {
            fatalError("envelope echo: \(error)")  // safe: a child benchmark process; its parent sees the connection close
        }
        unread.discardReadBytes()
        guard replies.readableBytes > 0 else { return }
        context.write(wrapOutboundOut(replies), promise: nil)
        replies.clear()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        WireTimeline.mark(.framesWritten)
        context.flush()
    }

    func channelInactive(context: ChannelHandlerContext) { exit(0) }
}

/// `envelope-echo PATH HEX`: one NIO event loop answering airport lookups on
/// PATH with the serialized `AirportLookupResponse` HEX, until the first
/// connection closes.
func runEnvelopeEchoServer(path: String, answerHex: String) -> Never {
    guard let answer = try? AirportLookupResponse(wireEncoded: bytes(fromHex: answerHex)) else { fatalError("envelope echo: not a lookup response: \(answerHex)") }  // safe: a child benchmark process
    serveOnOneLoop(path: path, mode: "envelope echo") { EnvelopeEchoHandler(answer: answer) }
}

/// Parses each RESPONSE frame read back and completes the promise waiting
/// for its correlation id.
private final class EnvelopeReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let limits = WireLimits()
    private var unread = ByteBuffer()
    var waiting: [UInt64: EventLoopPromise<WireEnvelope>] = [:]

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        unread.writeBuffer(&bytes)
        do {
            while let payload = try FrameCodec.decode(from: &unread, limits: limits) {
                WireTimeline.mark(.frameRead)
                let reply = try EnvelopeCoding.decode(payload)
                WireTimeline.mark(.responseDecoded)
                waiting.removeValue(forKey: reply.correlationID)?.succeed(reply)
            }
        } catch {
            context.fireErrorCaught(error)
        }
        unread.discardReadBytes()
    }
}

/// An `envelope-echo` child process and this process's client channel to it.
final class EnvelopeEchoFloor: Sendable {
    let child: Process
    let channel: any Channel
    private let replies: NIOLoopBound<EnvelopeReplyHandler>
    private let nextID = Atomic<UInt64>(0)
    private let limits = WireLimits()

    /// Starts the answering process, which answers every lookup of
    /// `answer.airport.code` with `answer`.
    init(answer: AirportLookupResponse) async throws {
        let path = "/tmp/farelens-envelope-echo-\(getpid()).sock"
        child = try startEchoChild(arguments: ["envelope-echo", path, hex(try answer.wireEncoded())])
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let handler = try await eventLoop.submit { NIOLoopBound(EnvelopeReplyHandler(), eventLoop: eventLoop) }.get()
        channel = try await ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler.value) }
            }
            .connect(unixDomainSocketPath: path)
            .get()
        replies = handler
    }

    /// One lookup from the calling task: serialized and framed here, written
    /// on the loop; the reply's envelope completes a promise that resumes the
    /// caller, which parses the response.
    func lookup(_ request: AirportLookupRequest) async throws -> AirportLookupResponse {
        WireTimeline.mark(.callerStarts)
        var envelope = WireEnvelope()
        envelope.kind = .request
        envelope.correlationID = nextID.add(1, ordering: .relaxed).newValue
        envelope.address = AirportLookupRequest.address.name
        envelope.typeName = AirportLookupRequest.wireTypeName
        envelope.deadlineMicros = 29_999_000
        envelope.payload = Data(try request.wireEncoded())
        var frame = ByteBuffer()
        FrameCodec.encode(bytes: try envelope.serializedBytes(), limits: limits, into: &frame)
        let promise = channel.eventLoop.makePromise(of: WireEnvelope.self)
        WireTimeline.mark(.frameQueued)
        channel.eventLoop.execute { [self, frame, id = envelope.correlationID] in
            WireTimeline.mark(.framesWritten)
            replies.value.waiting[id] = promise
            channel.writeAndFlush(frame, promise: nil)
        }
        let reply = try await promise.futureResult.get()
        let response = try AirportLookupResponse(wireEncoded: Array(reply.payload))
        WireTimeline.mark(.callerResumed)
        return response
    }

    /// `count` sequential lookups from a task that prefers `executor` (nil:
    /// the pool); one sample (ns) each.
    func latencies(count: Int, on executor: (any TaskExecutor)?) async throws -> [Double] {
        let request = lookupLHR()
        return try await sequentialLatencies(count: count, on: executor) { blackHole(try await self.lookup(request)) }
    }

    /// CPU time the answering process has used (user + system).
    var cpuTime: Duration { processCPUTime(child.processIdentifier) }

    func stop() async {
        try? await channel.close()
        child.waitUntilExit()
    }
}
