#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SwiftProtobuf

/// Small caps so that oversized frames and zlib bombs are reached with
/// inputs of a few KiB (run with -max_len=70000).
let fuzzLimits = WireLimits(maxFrameBytes: 64 << 10, maxInflatedBytes: 256 << 10, compressionThreshold: 1024)

/// The largest payload `FrameCodec.decode` may return: exactly the cap.
/// (The fuzzer found that the inflating library overshoots its `maxSize` by
/// up to ~1.33x; `FrameCodec` now checks the inflated size itself, and the
/// input is kept as the seed `zlib-inflates-cap-plus-one`.)
let payloadBound = fuzzLimits.maxInflatedBytes

/// libFuzzer entry point: the input is a byte stream as it arrives on a
/// bridge socket. Every frame is decoded and every payload parsed as an
/// envelope. A thrown `WireProtocolError` is an expected outcome; a crash,
/// trap, sanitizer report, timeout or memory blow-up is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    var buffer = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    while true {
        let before = buffer.readableBytes
        let payload: ByteBuffer?
        do {
            payload = try FrameCodec.decode(from: &buffer, limits: fuzzLimits)
        } catch {
            _ = error.codeName
            break
        }
        guard let payload else {
            // Incomplete frame: nothing may have been consumed.
            precondition(buffer.readableBytes == before, "decode returned nil but consumed bytes")
            break
        }
        precondition(buffer.readableBytes < before, "decode returned a frame without consuming bytes")
        precondition(payload.readableBytes <= payloadBound, "payload of \(payload.readableBytes) bytes exceeds the inflation cap \(fuzzLimits.maxInflatedBytes)")
        do {
            let envelope = try EnvelopeCoding.decode(payload)
            // Round-trip: a decoded envelope must re-encode.
            let bytes: [UInt8] = try envelope.serializedBytes()
            _ = bytes.count
        } catch {
            _ = "\(error)"
        }
    }
    return 0
}
