import FareLensBus
import FareLensWire
import Foundation
import Logging
import Synchronization

/// A short-lived admin peer: joins the node's socket (one attempt, no
/// reconnect), runs `body` with a bus whose requests travel over it, leaves.
enum AdminSession {
    private static let sessions = Mutex(0)

    /// `farelensctl-<pid>-<n>`: unique per session, so a second session from
    /// one process is not refused as a duplicate while the node still holds
    /// the first one's connection.
    static func nextNodeName() -> String {
        let number = sessions.withLock { count in
            count += 1
            return count
        }
        return "farelensctl-\(ProcessInfo.processInfo.processIdentifier)-\(number)"
    }

    /// - Parameter prepare: runs on the bus before the hello is sent (an
    ///   admin client's subscriptions become its watched topics).
    static func run<T: Sendable>(
        _ options: ConnectionOptions, prepare: (MessageBus) -> Void = { _ in },
        _ body: @escaping @Sendable (MessageBus, Duration) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "farelensctl")
        logger.logLevel = .critical
        var busConfiguration = BusConfiguration()
        busConfiguration.nodeName = nextNodeName()
        let bus = MessageBus(configuration: busConfiguration, logger: logger)
        prepare(bus)
        var bridge = BridgeConfiguration(socketPath: options.socketPath)
        bridge.helloTimeout = .milliseconds(options.timeoutMs)
        let identity = NodeIdentity(
            nodeName: busConfiguration.nodeName, role: .admin, softwareVersion: "farelensctl",
            startedAtUnixMs: Int64(Date().timeIntervalSince1970 * 1000)
        )
        let spoke = BridgeSpoke(bus: bus, configuration: bridge, identity: identity, logger: logger)
        bus.attach(spoke)
        let budget = Duration.milliseconds(options.timeoutMs)
        // The process may exit before the connection's close is handled on its event loop.
        defer { WireTimeline.flush() }
        let (joined, joinedContinuation) = AsyncStream.makeStream(of: Void.self)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                defer { joinedContinuation.finish() }
                try await spoke.session { joinedContinuation.yield() }
                return nil
            }
            var iterator = joined.makeAsyncIterator()
            guard await iterator.next() != nil else {
                // The session ended before joining: its error says why.
                do {
                    while let result = try await group.next() { _ = result }
                } catch let error as WireProtocolError where error.codeName == "socket-unavailable" && options.socketIsDefault {
                    // A newcomer's first stumble: `farelens serve --data-dir DIR` listens in DIR, not in ./data.
                    throw CtlFailure(
                        code: error.codeName,
                        error.message + "; that is the default: a node started with --data-dir DIR listens at DIR/farelens.sock (pass --socket PATH or set FARELENS_SOCKET)",
                        field: "--socket")
                }
                throw CtlFailure(code: "not-welcomed", "the node closed the connection before welcoming this client")
            }
            let result = try await body(bus, budget)
            group.cancelAll()
            return result
        }
    }
}


