public import FareLensBus
public import FareLensWire
public import Logging
import Foundation

/// A hub on `hubBus` and a spoke on `spokeBus` joined over a real Unix
/// socket at `socketPath`, both in this process: returns once the hub
/// listens and the spoke is started (not yet joined: wait for what the
/// benchmark needs, such as `spoke.hosts(address)`). Cancel the tasks to stop them.
public func startBridgePair(
    hubBus: MessageBus, spokeBus: MessageBus, socketPath: String, logger: Logger, hubName: String = "bench-hub", spokeName: String = "bench-spoke"
) async -> (spoke: BridgeSpoke, tasks: [Task<Void, any Error>]) {
    unlink(socketPath)
    let identity = { (name: String) in NodeIdentity(nodeName: name, softwareVersion: "bench", startedAtUnixMs: 0) }
    let (listening, listened) = AsyncStream<Void>.makeStream()
    let hub = BridgeHub(bus: hubBus, configuration: BridgeConfiguration(socketPath: socketPath), identity: identity(hubName), logger: logger) {
        listened.yield()
        listened.finish()
    }
    hubBus.attach(hub)
    let hubTask = Task { try await hub.run() }
    for await _ in listening { break }
    let spoke = BridgeSpoke(bus: spokeBus, configuration: BridgeConfiguration(socketPath: socketPath), identity: identity(spokeName), logger: logger)
    spokeBus.attach(spoke)
    let spokeTask = Task { try await spoke.run() }
    return (spoke, [hubTask, spokeTask])
}
