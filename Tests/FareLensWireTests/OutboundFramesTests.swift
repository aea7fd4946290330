import FareLensBus
import FareLensMessages
import FareLensTesting
@testable import FareLensWire
import Foundation
import NIOCore
import NIOPosix
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// How a connection writes: frames made by the sending threads, batched into
/// one write per turn of the event loop (``OutboundFrames``), and requests
/// answered at once on the loop (``InboundRequests``)
/// (docs/decisions/0016-bridge-frames-without-pipeline-handlers.md).
@Suite("The bridge's outgoing frames")
struct OutboundFramesTests {
    static let senders = 16
    static let framesPerSender = 400

    @Test("16 tasks sending at once: every frame arrives once, each task's in its order, compressed ones intact, and a close's goodbye after them all")
    func concurrentSendersKeepTheirOrder() async throws {
        // A low threshold, so every 50th frame (8,000 bytes) is compressed on its sender's thread.
        let (connection, peer) = try await Self.connectionToRawPeer(limits: WireLimits(compressionThreshold: 256))
        defer { peer.close() }

        await withTaskGroup(of: Void.self) { group in
            for sender in 0 ..< Self.senders {
                group.addTask {
                    for index in 0 ..< Self.framesPerSender {
                        connection.send(Self.event(sender: sender, index: index))
                    }
                }
            }
        }
        // Read only now: over 1 MB waits in the socket and the channel, and
        // the close must wait until it is all written, the goodbye last.
        connection.close(reason: "done")
        let (bytes, closed) = await peer.readUntilClosed()
        #expect(closed)
        let envelopes = try RawSocketClient.envelopes(in: bytes)
        #expect(envelopes.count == Self.senders * Self.framesPerSender + 1)
        #expect(envelopes.last?.kind == .goodbye)
        #expect(envelopes.last?.error.message == "done")
        for sender in 0 ..< Self.senders {
            let own = envelopes.filter { $0.kind == .event && $0.topic == "sender-\(sender)" }
            #expect(own.map(\.event.sequence) == (0 ..< UInt64(Self.framesPerSender)).map { $0 }, "sender \(sender)")
            #expect(own.allSatisfy { $0.payload == Self.payload(sender: sender, index: Int($0.event.sequence)) }, "sender \(sender)")
        }
    }

    @Test("requests answered without waiting (started at once on the loop) give back their place: 40 in a row within an in-flight limit of 2")
    func answeredAtOnceFreeTheirPlace() async throws {
        try await withTestMesh(.split, bridge: { $0.maxInFlightPerConnection = 2 }) { server, _ in
            try server.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
        } body: { mesh in
            for index in 0 ..< 40 {
                let reply = try await mesh.clientBus.request(EchoRequest(text: "\(index)"))
                #expect(reply.text == "\(index)")
            }
        }
    }

    @Test("frames sent on the event loop are written as soon as 2 KiB have gathered, not only when the loop's turn ends")
    func framesOnTheLoopAreWrittenEarly() async throws {
        let (connection, peer) = try await Self.connectionToRawPeer(limits: WireLimits())
        defer { peer.close() }
        let frameBytes = FrameCodec.headerBytes + (try Self.reply(1).serializedBytes() as [UInt8]).count
        let below = (OutboundFrames.earlyWriteBytes - 1) / frameBytes
        let peerEnd = peer.fd
        // All on the loop, as a reply answered while a read is decoded.
        let (beforeThreshold, atThreshold) = try await connection.channel.eventLoop.submit {
            for index in 1 ... below { connection.send(Self.reply(index)) }
            let beforeThreshold = Self.bytesWaiting(on: peerEnd)
            connection.send(Self.reply(below + 1))
            return (beforeThreshold, Self.bytesWaiting(on: peerEnd))
        }.get()
        #expect(beforeThreshold == 0, "\(below) frames of \(frameBytes) B wait for the end of the turn")
        #expect(atThreshold == (below + 1) * frameBytes, "the frame that reached \(OutboundFrames.earlyWriteBytes) B was written with those before it, on the spot")
        connection.close(reason: "done")
        let (bytes, closed) = await peer.readUntilClosed()
        #expect(closed)
        let envelopes = try RawSocketClient.envelopes(in: bytes)
        #expect(envelopes.filter { $0.kind == .event }.map(\.event.sequence) == (1 ... UInt64(below + 1)).map { $0 })
    }

    /// A bridge connection on one end of a socket pair, and a raw client on the other.
    static func connectionToRawPeer(limits: WireLimits) async throws -> (PeerConnection, RawSocketClient) {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let peer = RawSocketClient(connectedDescriptor: ends[1])
        let made = Locked<PeerConnection?>(nil)
        _ = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                let connection = PeerConnection(channel: channel, logger: quietLogger(), limits: limits)
                made.set(connection)
                return channel.eventLoop.makeCompletedFuture { try BridgePipeline.install(on: channel, connection: connection) }
            }
            .withConnectedSocket(ends[0]).get()
        return (try #require(made.get()), peer)
    }

    /// An envelope of the same size for every `index` below 100 (a 100 B payload).
    static func reply(_ index: Int) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .event
        envelope.topic = "replies"
        envelope.event.sequence = UInt64(index)
        envelope.payload = Data(repeating: 7, count: 100)
        return envelope
    }

    /// Bytes the socket `descriptor` could read now, without reading them.
    static func bytesWaiting(on descriptor: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        return max(0, count)
    }

    static func event(sender: Int, index: Int) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .event
        envelope.topic = "sender-\(sender)"
        envelope.event.sequence = UInt64(index)
        envelope.payload = payload(sender: sender, index: index)
        return envelope
    }

    /// 8 bytes, or every 50th frame 8,000 that barely compress (a linear
    /// congruential sequence), so the frames outgrow the socket's buffer.
    static func payload(sender: Int, index: Int) -> Data {
        var state = UInt32(truncatingIfNeeded: sender &* 7919 &+ index)
        return Data((0 ..< (index % 50 == 0 ? 8_000 : 8)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        })
    }
}
