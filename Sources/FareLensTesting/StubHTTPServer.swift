import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 for testing HTTP clients against
/// scripted answers, recording every request it receives.
///
/// For each request the server answers, in this order: the next response
/// queued for its path with ``enqueue(_:for:)``; the standing response set
/// with ``respond(to:with:)``; the ``fallback`` closure; 404. Paths are
/// compared without the query. Only the loopback interface is used.
///
/// ```swift
/// let server = StubHTTPServer()
/// server.respond(to: "/v1/token", with: .json(#"{"access_token":"t"}"#))
/// let baseURL = try await server.start()   // "http://127.0.0.1:PORT"
/// defer { Task { try? await server.stop() } }
/// ```
public final class StubHTTPServer: Sendable {
    /// Answers requests nothing was scripted for.
    public typealias Fallback = @Sendable (StubRequest) -> StubResponse

    private struct State {
        var queued: [String: [StubResponse]] = [:]
        var standing: [String: StubResponse] = [:]
        var recorded: [StubRequest] = []
        var listener: (any Channel)?
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    private let state = Mutex(State())
    private let fallback: Fallback?

    /// A server that answers unscripted requests with `fallback`, or 404 when nil.
    public init(fallback: Fallback? = nil) {
        self.fallback = fallback
    }

    /// Binds 127.0.0.1 on a free port and starts serving.
    ///
    /// - Returns: the base URL, "http://127.0.0.1:PORT".
    public func start() async throws -> String {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(StubHTTPHandler(server: self))
                    self.track(channel)
                }
            }
        let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        state.withLock { $0.listener = listener }
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw StubHTTPServerError.noPort
        }
        return "http://127.0.0.1:\(port)"
    }

    /// Stops listening and closes every open connection (requests still
    /// waiting for an answer see the connection close).
    public func stop() async throws {
        let (listener, connections) = state.withLock { state in
            defer {
                state.listener = nil
                state.connections = [:]
            }
            return (state.listener, Array(state.connections.values))
        }
        for connection in connections { try? await connection.close() }
        try await listener?.close()
    }

    /// Answers every request to `path` with `response` (after any queued ones).
    public func respond(to path: String, with response: StubResponse) {
        state.withLock { $0.standing[path] = response }
    }

    /// Answers the next request to `path` with `response`; several calls answer successive requests in order.
    public func enqueue(_ response: StubResponse, for path: String) {
        state.withLock { $0.queued[path, default: []].append(response) }
    }

    /// Every request received so far, in arrival order.
    public var requests: [StubRequest] { state.withLock { $0.recorded } }

    /// The requests received for `path` (compared without the query).
    public func requests(to path: String) -> [StubRequest] { requests.filter { $0.path == path } }

    /// Records `request` and picks its answer.
    func answer(_ request: StubRequest) -> StubResponse {
        let scripted: StubResponse? = state.withLock { state in
            state.recorded.append(request)
            if var queue = state.queued[request.path], !queue.isEmpty {
                let next = queue.removeFirst()
                state.queued[request.path] = queue
                return next
            }
            return state.standing[request.path]
        }
        return scripted ?? fallback?(request) ?? .unscripted(request)
    }

    private func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.connections[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.state.withLock { $0.connections.removeValue(forKey: id) }
        }
    }
}

/// Why the stub server could not start.
public enum StubHTTPServerError: Error, Sendable {
    /// The bound socket reported no port.
    case noPort
}
