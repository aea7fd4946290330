public import FareLensMessages
public import NIOCore
import SwiftProtobuf

/// Splits the byte stream into frame payloads (inflated when flagged),
/// enforcing the frame and inflation caps. A violation is fired as an error,
/// which closes this connection only.
public struct FrameDecoder: ByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer
    let limits: WireLimits
    let metrics: ConnectionMetrics?

    /// Creates a decoder with the given limits.
    public init(limits: WireLimits, metrics: ConnectionMetrics? = nil) {
        self.limits = limits
        self.metrics = metrics
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let before = buffer.readableBytes
        guard let payload = try FrameCodec.decode(from: &buffer, limits: limits) else { return .needMoreData }
        metrics?.received(wireBytes: before - buffer.readableBytes, payloadBytes: payload.readableBytes)
        context.fireChannelRead(Self.wrapInboundOut(payload))
        return .continue
    }

    /// Decodes the complete frames left when the stream ends. Bytes of an
    /// incomplete frame are an error (`leftoverDataWhenDone`, logged as
    /// "connection ended inside a frame"): `ByteToMessageHandler` reports
    /// leftovers only if the decoder throws, and silently drops them otherwise.
    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 { throw ByteToMessageDecoderError.leftoverDataWhenDone(buffer) }
        return .needMoreData
    }
}

/// Parses each frame payload as a protobuf ``WireEnvelope``.
public final class EnvelopeDecoder: ChannelInboundHandler, Sendable {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = WireEnvelope

    /// Creates the decoder.
    public init() {}

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let payload = Self.unwrapInboundIn(data)
        do {
            context.fireChannelRead(Self.wrapInboundOut(try EnvelopeCoding.decode(payload)))
        } catch {
            context.fireErrorCaught(error)
        }
    }
}

/// Serializes each outgoing ``WireEnvelope`` into one frame.
public struct EnvelopeFrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = WireEnvelope
    let limits: WireLimits
    let metrics: ConnectionMetrics?

    /// Creates an encoder with the given compression policy.
    public init(limits: WireLimits, metrics: ConnectionMetrics? = nil) {
        self.limits = limits
        self.metrics = metrics
    }

    public func encode(data: WireEnvelope, out: inout ByteBuffer) throws {
        let bytes: [UInt8] = try data.serializedBytes()
        let written = FrameCodec.encode(bytes: bytes, limits: limits, into: &out)
        metrics?.sent(wireBytes: written + FrameCodec.headerBytes, payloadBytes: bytes.count)
    }
}
