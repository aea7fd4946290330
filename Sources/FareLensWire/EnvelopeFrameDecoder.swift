import FareLensMessages
import NIOCore

/// The inbound half of a bridge connection's pipeline: splits the byte
/// stream into frame payloads (inflated when flagged, within the frame and
/// inflation caps), parses each as a protobuf ``WireEnvelope`` in place and
/// hands it straight to the connection, in the order received. A violation
/// is thrown, which closes this connection only (``PeerConnectionHandler``).
///
/// One decoder, not a frame decoder followed by an envelope decoder and a
/// handler: each envelope then crossed two more pipeline steps, boxed in an
/// `NIOAny` each time (docs/decisions/0016-bridge-frames-without-pipeline-handlers.md).
struct EnvelopeFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = Never
    /// Where envelopes go; its limits and counters apply.
    let connection: PeerConnection

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let before = buffer.readableBytes
        guard let payload = try FrameCodec.decode(from: &buffer, limits: connection.limits) else { return .needMoreData }
        WireTimeline.mark(.frameRead)
        connection.metrics?.received(wireBytes: before - buffer.readableBytes, payloadBytes: payload.readableBytes)
        connection.received(try EnvelopeCoding.decode(payload))
        return .continue
    }

    /// Decodes the complete frames left when the stream ends. Bytes of an
    /// incomplete frame are an error (`leftoverDataWhenDone`, logged as
    /// "connection ended inside a frame"): `ByteToMessageHandler` reports
    /// leftovers only if the decoder throws, and silently drops them otherwise.
    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        if buffer.readableBytes > 0 { throw ByteToMessageDecoderError.leftoverDataWhenDone(buffer) }
        return .needMoreData
    }
}
