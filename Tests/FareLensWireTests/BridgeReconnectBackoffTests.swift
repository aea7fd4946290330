import FareLensBus
import FareLensTesting
import FareLensWire
import Foundation
import Testing

/// A spoke's reconnect backoff waits on what its configuration gives it
/// (`waitBeforeReconnecting`): here, waits the test releases one by one, so
/// the spoke tries again when the test says, never because real time passed.
@Suite("Bridge: a spoke's reconnect backoff, stepped by the test")
struct BridgeReconnectBackoffTests {
    /// Backoff waits that end only when the test releases them, in order.
    final class SteppedWaits: Sendable {
        private let waits = Locked<[(Duration, Gate)]>([])

        /// The backoffs asked for so far.
        var requested: [Duration] { waits.get().map(\.0) }

        func wait(_ backoff: Duration) async throws {
            let gate = Gate()
            waits.update { $0.append((backoff, gate)) }
            await gate.wait()
            try Task.checkCancellation()
        }

        /// Ends every wait asked for so far.
        func releaseAll() {
            for (_, gate) in waits.get() { gate.open() }
        }
    }

    @Test("with no hub, each failed attempt waits out a backoff double the last, up to the longest, and the next attempt comes only when it ends; once the hub listens the spoke joins")
    func doublingUntilJoined() async throws {
        let path = temporarySocketPath()
        let waits = SteppedWaits()
        var configuration = fastBridge(path)
        configuration.reconnectBackoff = (.milliseconds(10), .milliseconds(40))
        configuration.waitBeforeReconnecting = { try await waits.wait($0) }
        let spokeBus = makeNodeBus("spoke")
        let spoke = BridgeSpoke(bus: spokeBus, configuration: configuration, identity: testIdentity("spoke"), logger: quietLogger())
        spokeBus.attach(spoke)
        let running = Task { try await spoke.run() }
        defer {
            waits.releaseAll()
            running.cancel()
        }
        let expected: [Duration] = [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(40)]
        for count in 1 ... expected.count {
            try await waitUntil("attempt \(count) failed and its backoff began") { waits.requested.count >= count }
            // The spoke is parked in that backoff: no further attempt until the test ends it.
            #expect(waits.requested == Array(expected.prefix(count)), "\(waits.requested)")
            #expect(!spoke.isConnected)
            if count < expected.count { waits.releaseAll() }
        }

        let hubBus = makeNodeBus("hub")
        let (_, hubTask) = try await startHub(hubBus, configuration)
        defer { hubTask.cancel() }
        waits.releaseAll()
        try await waitUntil("the spoke joined once its backoff ended") { spoke.isConnected }
        #expect(waits.requested == expected, "no backoff while joined")
    }
}
