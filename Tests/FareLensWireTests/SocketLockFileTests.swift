import FareLensBus
import FareLensTesting
import FareLensWire
import Foundation
import Testing

/// The hub's `<socket path>.lock` (docs/wire-protocol.md § 2.2).
@Suite("Bridge socket lock file")
struct SocketLockFileTests {
    @Test("a hub that stops cleanly leaves neither its socket file nor its lock file behind (the .sock.lock stayed)")
    func cleanStopRemovesTheLockFile() async throws {
        let path = temporarySocketPath()
        let (_, running) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        #expect(FileManager.default.fileExists(atPath: path + ".lock"), "held while the hub runs")
        running.cancel()
        _ = await running.result
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
    }

    @Test("a hub started while the one before still holds the lock gets it once that one has stopped and removed its file, and is reached")
    func successorLocksTheNewFile() async throws {
        let path = temporarySocketPath()
        let (_, first) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        first.cancel()  // not awaited: the next hub opens the lock file while this one may still hold it
        let (_, second) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        _ = await first.result
        #expect(FileManager.default.fileExists(atPath: path + ".lock"), "the running hub's lock file is there")
        let (_, spoke) = try await startSpoke(makeNodeBus("probe"), fastBridge(path), name: "probe")
        spoke.cancel()
        _ = await spoke.result
        second.cancel()
        _ = await second.result
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))
    }
}
