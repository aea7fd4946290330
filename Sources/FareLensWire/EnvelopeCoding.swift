// The fuzz target (Fuzz/) compiles this file together with the generated
// envelope in one module, where FareLensMessages does not exist.
#if canImport(FareLensMessages)
public import FareLensMessages
#endif
public import NIOCore
import SwiftProtobuf

/// Envelope ↔ bytes, shared by the handlers and the fuzz target.
public enum EnvelopeCoding {
    /// Decodes a frame payload into an envelope.
    ///
    /// - Throws: ``WireProtocolError`` `malformed-envelope`.
    public static func decode(_ payload: ByteBuffer) throws(WireProtocolError) -> WireEnvelope {
        do {
            // Parsed in place: copying every frame into an array first was an allocation and a copy per message.
            let envelope = try WireEnvelope(serializedBytes: payload.readableBytesSpan)
            guard envelope.kind != .unspecified else { throw WireProtocolError.malformedEnvelope("kind is missing or unknown") }
            return envelope
        } catch let error as WireProtocolError {
            throw error
        } catch {
            throw .malformedEnvelope("not a protobuf Envelope (\(error))")
        }
    }

    /// Encodes an envelope into a frame payload.
    public static func encode(_ envelope: WireEnvelope) throws -> ByteBuffer {
        let bytes: [UInt8] = try envelope.serializedBytes()
        return ByteBuffer(bytes: bytes)
    }
}
