import BenchmarkHarness
import FareLensBus
import FareLensMessages
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The wire format's floor without event loops (issue #12): the raw
// ping-pong's two blocking threads in two processes, each doing what
// docs/wire-protocol.md asks of its side and nothing more (the same work as
// EnvelopeEchoFloor's). Beside the raw ping-pong, it shows what the format's
// work costs a design with no event loop, no Swift concurrency and no NIO on
// either side: the least any bridge speaking this format could take here.

/// Reads one frame (`u32` big-endian length, flags byte, payload) from `fd`
/// into `payload`; false at the end of the stream or on a flagged (compressed) frame.
private func readFrame(_ fd: Int32, into payload: inout [UInt8]) -> Bool {
    var header = [UInt8](repeating: 0, count: 4)
    guard readFully(fd, &header) else { return false }
    let length = header.reduce(0) { $0 << 8 | Int($1) }
    guard length > 0 else { return false }
    var body = [UInt8](repeating: 0, count: length)
    guard readFully(fd, &body), body[0] == 0 else { return false }
    payload = Array(body[1...])
    return true
}

/// `payload` framed: the length of the flags byte and payload, the flags byte (0), the payload.
private func frame(_ payload: [UInt8]) -> [UInt8] {
    let length = UInt32(payload.count + 1)
    return [UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length), 0] + payload
}

/// `raw-envelope-echo PATH HEX`: accepts one connection on PATH and answers
/// airport lookups with the serialized `AirportLookupResponse` HEX, with
/// blocking read/write, until the peer closes.
func runRawEnvelopeEchoServer(path: String, answerHex: String) -> Never {
    guard let answer = try? AirportLookupResponse(wireEncoded: bytes(fromHex: answerHex)) else { fatalError("raw envelope echo: not a lookup response") }  // safe: a child benchmark process
    let airports = [answer.airport.iataCode: answer]
    let connection = acceptOneConnection(path: path, mode: "raw envelope echo")
    var payload: [UInt8] = []
    while readFrame(connection, into: &payload) {
        do {
            let request = try WireEnvelope(serializedBytes: payload)
            let lookup = try AirportLookupRequest(wireEncoded: Array(request.payload))
            var reply = WireEnvelope()
            reply.kind = .response
            reply.correlationID = request.correlationID
            reply.payload = Data(try airports[lookup.code, default: AirportLookupResponse()].wireEncoded())
            guard writeFully(connection, frame(try reply.serializedBytes())) else { break }
        } catch {
            fatalError("raw envelope echo: \(error)")  // safe: a child benchmark process; its parent sees the connection close
        }
    }
    unlink(path)
    exit(0)
}

/// `bytes` in hexadecimal, for a child process's command line.
func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// The bytes of a hexadecimal string.
func bytes(fromHex hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var digits = hex.makeIterator()
    while let high = digits.next(), let low = digits.next(), let byte = UInt8(String([high, low]), radix: 16) { bytes.append(byte) }
    return bytes
}

/// A `raw-envelope-echo` child process and one connection to it, used by one
/// round at a time from a plain thread.
final class RawEnvelopeFloor: @unchecked Sendable {  // safe: the fd is used by one round at a time, on its own thread
    let child: Process
    let fd: Int32

    init(answer: AirportLookupResponse) throws {
        let path = "/tmp/farelens-raw-envelope-echo-\(getpid()).sock"
        child = try startEchoChild(arguments: ["raw-envelope-echo", path, hex(try answer.wireEncoded())])
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = unixAddress(path)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        self.fd = fd
        guard connected == 0 else { throw BenchmarkFailure("cannot connect to the raw envelope echo process: errno \(errno)") }
    }

    /// `count` timed lookups, on a plain thread (never the concurrency pool):
    /// each serializes the lookup, its envelope and frame, writes, reads the
    /// reply's frame and parses its envelope and response.
    func round(count: Int) async -> [Double] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in continuation.resume(returning: lookups(count: count)) }
        }
    }

    private func lookups(count: Int) -> [Double] {
        let request = lookupLHR()
        var samples: [Double] = []
        samples.reserveCapacity(count)
        var payload: [UInt8] = []
        let clock = ContinuousClock()
        for id in 1...UInt64(count) {
            let start = clock.now
            do {
                var envelope = WireEnvelope()
                envelope.kind = .request
                envelope.correlationID = id
                envelope.address = AirportLookupRequest.address.name
                envelope.typeName = AirportLookupRequest.wireTypeName
                envelope.deadlineMicros = 29_999_000
                envelope.payload = Data(try request.wireEncoded())
                guard writeFully(fd, frame(try envelope.serializedBytes())), readFrame(fd, into: &payload) else { fatalError("raw envelope floor broke: errno \(errno)") }  // safe: a benchmark cannot report a figure without its reference
                let reply = try WireEnvelope(serializedBytes: payload)
                guard reply.correlationID == id else { fatalError("raw envelope floor: reply \(reply.correlationID) to request \(id)") }  // safe: as above
                blackHole(try AirportLookupResponse(wireEncoded: Array(reply.payload)))
            } catch {
                fatalError("raw envelope floor: \(error)")  // safe: as above
            }
            samples.append(nanoseconds(clock.now - start))
        }
        return samples
    }

    /// CPU time the answering process has used (user + system).
    var cpuTime: Duration { processCPUTime(child.processIdentifier) }

    func stop() {
        close(fd)
        child.waitUntilExit()
    }
}
