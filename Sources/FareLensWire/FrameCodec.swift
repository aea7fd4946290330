import CompressNIO
public import NIOCore

/// The frame layout of docs/wire-protocol.md:
///
///     u32 length (big-endian; bytes after this field) | u8 flags | payload
///
/// Flags bit 0 means the payload is a zlib (RFC 1950) stream; other bits
/// must be zero. Pure functions over `ByteBuffer`, shared by the NIO
/// handlers and the fuzz target.
public enum FrameCodec {
    /// Flags bit 0: the payload is zlib-compressed.
    public static let zlibFlag: UInt8 = 0x01
    /// Bytes before the payload: the length field and the flags byte.
    public static let headerBytes = 5

    /// Appends one frame carrying `payload` to `out`, compressing the payload
    /// when it is at least the threshold long and compression makes it smaller.
    ///
    /// - Returns: the number of payload bytes written (after compression).
    @discardableResult
    public static func encode(payload: ByteBuffer, limits: WireLimits, into out: inout ByteBuffer) -> Int {
        var body = payload
        var flags: UInt8 = 0
        if payload.readableBytes >= limits.compressionThreshold,
           let compressed = try? deflate(payload), compressed.readableBytes < payload.readableBytes {
            body = compressed
            flags = zlibFlag
        }
        writeHeader(bodyBytes: body.readableBytes, flags: flags, into: &out)
        out.writeImmutableBuffer(body)
        return body.readableBytes
    }

    /// The 4-byte big-endian length (flags byte plus body) and the flags byte.
    private static func writeHeader(bodyBytes: Int, flags: UInt8, into out: inout ByteBuffer) {
        out.writeInteger(UInt32(bodyBytes + 1), endianness: .big)
        out.writeInteger(flags)
    }

    /// Appends one frame carrying the serialized `bytes`, exactly as
    /// ``encode(payload:limits:into:)`` would; below the compression
    /// threshold the bytes go straight into `out`, without a buffer of their
    /// own first (every outgoing envelope passes here).
    ///
    /// - Returns: the number of payload bytes written (after compression).
    @discardableResult
    public static func encode(bytes: [UInt8], limits: WireLimits, into out: inout ByteBuffer) -> Int {
        guard bytes.count < limits.compressionThreshold else {
            return encode(payload: ByteBuffer(bytes: bytes), limits: limits, into: &out)
        }
        out.reserveCapacity(minimumWritableBytes: headerBytes + bytes.count)
        writeHeader(bodyBytes: bytes.count, flags: 0, into: &out)
        out.writeBytes(bytes)
        return bytes.count
    }

    /// Reads one complete frame from the front of `buffer` and returns its
    /// payload, inflated if it was compressed. Returns nil, consuming nothing,
    /// when the frame is not complete yet.
    ///
    /// The length cap is checked as soon as the 4 length bytes are present,
    /// so an oversized frame is refused before its body arrives.
    ///
    /// - Throws: ``WireProtocolError`` (`frame-too-large`, `empty-frame`,
    ///   `unknown-flags`, `inflated-too-large`, `corrupt-compression`).
    public static func decode(from buffer: inout ByteBuffer, limits: WireLimits) throws(WireProtocolError) -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else { return nil }
        let frameLength = Int(length)
        guard frameLength > 0 else { throw .emptyFrame }
        guard frameLength <= limits.maxFrameBytes else { throw .frameTooLarge(frameLength, cap: limits.maxFrameBytes) }
        guard buffer.readableBytes >= 4 + frameLength else { return nil }
        buffer.moveReaderIndex(forwardBy: 4)
        let flags: UInt8 = buffer.readInteger()!
        var body = buffer.readSlice(length: frameLength - 1)!
        guard flags & ~zlibFlag == 0 else { throw .unknownFlags(flags) }
        guard flags & zlibFlag != 0 else { return body }
        return try inflate(&body, cap: limits.maxInflatedBytes)
    }

    static func deflate(_ payload: ByteBuffer) throws -> ByteBuffer {
        var input = payload
        return try input.compress(with: .zlib())
    }

    static func inflate(_ body: inout ByteBuffer, cap: Int) throws(WireProtocolError) -> ByteBuffer {
        do {
            // compress-nio stops growing its output near `maxSize`, not at
            // it; the exact cap is enforced here.
            let inflated = try body.decompress(with: .zlib(), maxSize: cap)
            guard inflated.readableBytes <= cap else { throw WireProtocolError.inflatedTooLarge(cap: cap) }
            return inflated
        } catch let error as WireProtocolError {
            throw error
        } catch let error as CompressNIOError where error == .bufferOverflow {
            throw .inflatedTooLarge(cap: cap)
        } catch {
            throw .corruptCompression
        }
    }
}
