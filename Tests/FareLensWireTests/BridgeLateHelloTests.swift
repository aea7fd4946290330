import FareLensTesting
@testable import FareLensWire
import Foundation
import NIOCore
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// On a starved machine the task that reads a peer's hello can resume
/// seconds after the hello arrived. The hello timer must judge the peer, not
/// the scheduler: a hello that came in time is answered, however late it is
/// read. (A CI run on 2 loaded cores lost in-process split meshes this way:
/// the connection was closed right after the handshake, "connection closed".)
///
/// Runs alone, after the test command's parallel run (ops/test.sh): it holds every
/// thread of the cooperative pool for 600 ms, which would stall other
/// suites, and another suite holding a thread would spoil its setup.
@Suite("A hello read after the hello timeout")
struct BridgeLateHelloTests {
    @Test("a hello sent in time is welcomed even when every cooperative thread is held until after helloTimeout")
    func helloReadLate() async throws {
        let path = temporarySocketPath()
        var configuration = fastBridge(path)
        configuration.helloTimeout = .milliseconds(200)
        let (_, task) = try await startHub(makeNodeBus("hub"), configuration)
        defer { task.cancel() }
        let client = try RawSocketClient(path: path)
        defer { client.close() }
        // Let the hub's connection task start its timer and wait for the hello.
        try await Task.sleep(for: .milliseconds(50))  // safe: a head start for the hub's task; the timer it starts is the subject
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let hold = PoolHold()
        var frame = ByteBuffer()
        FrameCodec.encode(payload: try EnvelopeCoding.encode(rawHello(name: "late")), limits: WireLimits(), into: &frame)
        let hello = Array(frame.readableBytesView)
        let fd = client.fd
        await withTaskGroup(of: Void.self) { group in
            for index in 0 ..< threads {
                group.addTask {
                    // Every pool thread arrives here before the hello is sent (bounded: 5 s).
                    hold.holding.add(1, ordering: .relaxed)
                    let start = ContinuousClock.now
                    while hold.holding.load(ordering: .relaxed) < threads, ContinuousClock.now - start < .seconds(5) {}
                    if index == 0 {
                        let written = hello.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                        hold.sent.store(written == hello.count, ordering: .relaxed)
                    }
                    usleep(600_000)  // safe: holding the pool past the 200 ms timeout is the point of the test
                }
            }
        }
        let helloSent = hold.sent.load(ordering: .relaxed)
        #expect(helloSent)
        let answer = await client.readUntil(kind: .welcome)
        #expect(answer.first?.kind == .welcome, "got \(answer.map(\.kind)): \(answer.map(\.error.message))")
    }
}

/// What the holding tasks share.
private final class PoolHold: Sendable {
    let holding = Atomic<Int>(0)
    let sent = Atomic<Bool>(false)
}
