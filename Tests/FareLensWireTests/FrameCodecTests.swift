import CompressNIO
import FareLensWire
import NIOCore
import Testing

@Suite("Frames")
struct FrameCodecTests {
    let limits = WireLimits(maxFrameBytes: 64 * 1024, maxInflatedBytes: 256 * 1024, compressionThreshold: 128)

    func frame(_ payload: [UInt8], limits: WireLimits? = nil) -> ByteBuffer {
        var out = ByteBuffer()
        FrameCodec.encode(payload: ByteBuffer(bytes: payload), limits: limits ?? self.limits, into: &out)
        return out
    }

    func decodeError(_ bytes: [UInt8]) -> WireProtocolError? {
        var buffer = ByteBuffer(bytes: bytes)
        do {
            _ = try FrameCodec.decode(from: &buffer, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("a small payload is framed uncompressed: big-endian length of flags plus payload, flags 0")
    func smallPayloadIsPlain() throws {
        let buffer = frame([0xAA, 0xBB, 0xCC])
        #expect(Array(buffer.readableBytesView) == [0, 0, 0, 4, 0, 0xAA, 0xBB, 0xCC])
    }

    @Test("a large compressible payload is sent zlib-compressed with flag bit 0 and decodes to the original")
    func largePayloadIsCompressed() throws {
        let payload = Array(repeating: UInt8(ascii: "a"), count: 4000)
        var buffer = frame(payload)
        #expect(buffer.getInteger(at: 4, as: UInt8.self) == FrameCodec.zlibFlag)
        #expect(buffer.readableBytes < payload.count / 4)
        let decoded = try #require(try FrameCodec.decode(from: &buffer, limits: limits))
        #expect(Array(decoded.readableBytesView) == payload)
        #expect(buffer.readableBytes == 0)
    }

    @Test("a payload that compression would not shrink is sent plain")
    func incompressiblePayloadIsPlain() throws {
        var generator = SystemRandomNumberGenerator()
        let payload = (0 ..< 2000).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        var buffer = frame(payload)
        #expect(buffer.getInteger(at: 4, as: UInt8.self) == 0)
        let decoded = try #require(try FrameCodec.decode(from: &buffer, limits: limits))
        #expect(Array(decoded.readableBytesView) == payload)
    }

    @Test("framing serialized bytes writes exactly the frame of the same payload in a buffer, below, at and above the compression threshold", arguments: [0, 1, 127, 128, 129, 4000])
    func bytesFrameLikeBuffers(count: Int) throws {
        let payload = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 % 7) }
        var out = ByteBuffer(bytes: [0xEE])  // a frame already queued before it
        let written = FrameCodec.encode(bytes: payload, limits: limits, into: &out)
        #expect(out.readInteger(as: UInt8.self) == 0xEE)
        #expect(Array(out.readableBytesView) == Array(frame(payload).readableBytesView))
        #expect(written == out.readableBytes - FrameCodec.headerBytes)
        let decoded = try #require(try FrameCodec.decode(from: &out, limits: limits))
        #expect(Array(decoded.readableBytesView) == payload)
    }

    @Test("an incomplete frame yields nothing and consumes nothing")
    func incompleteFrameWaits() throws {
        let whole = frame([1, 2, 3, 4, 5])
        var partial = whole.getSlice(at: 0, length: whole.readableBytes - 1)!
        #expect(try FrameCodec.decode(from: &partial, limits: limits) == nil)
        #expect(partial.readableBytes == whole.readableBytes - 1)
    }

    @Test("two frames in one buffer decode one after the other")
    func backToBackFrames() throws {
        var buffer = frame([1])
        var second = frame([2, 2])
        buffer.writeBuffer(&second)
        #expect(try FrameCodec.decode(from: &buffer, limits: limits).map { Array($0.readableBytesView) } == [1])
        #expect(try FrameCodec.decode(from: &buffer, limits: limits).map { Array($0.readableBytesView) } == [2, 2])
    }

    @Test("a length prefix above the cap is refused as soon as the 4 length bytes arrive")
    func oversizedFrameIsRefusedEarly() {
        #expect(decodeError([0x00, 0x10, 0x00, 0x01]) == .frameTooLarge(0x10_0001, cap: 64 * 1024))
    }

    @Test("a zero length is refused: a frame carries at least its flags byte")
    func emptyFrameIsRefused() {
        #expect(decodeError([0, 0, 0, 0]) == .emptyFrame)
    }

    @Test("flag bits other than bit 0 are refused")
    func unknownFlagsAreRefused() {
        #expect(decodeError([0, 0, 0, 2, 0x02, 0x00]) == .unknownFlags(0x02))
    }

    @Test("a decompression bomb is refused at the inflated-size cap, even one byte over it", arguments: [1 << 20, 256 * 1024 + 1])
    func decompressionBombIsRefused(inflatedSize: Int) throws {
        var zeros = ByteBuffer(bytes: Array(repeating: 0, count: inflatedSize))
        let bomb = try zeros.compress(with: .zlib())
        #expect(bomb.readableBytes < 4096)
        var bytes: [UInt8] = []
        bytes.append(contentsOf: withUnsafeBytes(of: UInt32(bomb.readableBytes + 1).bigEndian, Array.init))
        bytes.append(FrameCodec.zlibFlag)
        bytes.append(contentsOf: bomb.readableBytesView)
        #expect(decodeError(bytes) == .inflatedTooLarge(cap: 256 * 1024))
    }

    @Test("a compressed payload of exactly the inflated cap is accepted")
    func payloadAtCapIsAccepted() throws {
        let payload = Array(repeating: UInt8(7), count: 256 * 1024)
        var buffer = frame(payload)
        #expect(buffer.getInteger(at: 4, as: UInt8.self) == FrameCodec.zlibFlag)
        #expect(try FrameCodec.decode(from: &buffer, limits: limits)?.readableBytes == payload.count)
    }

    @Test("a payload flagged zlib that is not a zlib stream is refused")
    func corruptCompressionIsRefused() {
        #expect(decodeError([0, 0, 0, 4, 0x01, 0xDE, 0xAD, 0xBE]) == .corruptCompression)
    }

    @Test("a payload that is not a protobuf envelope is a malformed envelope")
    func garbageEnvelopeIsMalformed() {
        #expect { try EnvelopeCoding.decode(ByteBuffer(bytes: [0xFF, 0xFF, 0xFF])) } throws: { error in
            let wire = error as? WireProtocolError
            return wire?.codeName == "malformed-envelope" && wire?.message.hasPrefix("malformed envelope: not a protobuf Envelope") == true
        }
        // Empty bytes are a valid, empty protobuf message, whose kind is missing.
        #expect { try EnvelopeCoding.decode(ByteBuffer()) } throws: { error in
            error as? WireProtocolError == .malformedEnvelope("kind is missing or unknown")
        }
    }
}
