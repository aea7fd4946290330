import FareLensBus
import FareLensMessages
import NIOCore
import Synchronization

/// The REQUESTs a connection is answering. Each one is answered in a task
/// of its own that prefers the connection's event loop: started on the loop
/// as the frame is decoded, it decodes, routes and runs the handler there
/// (and in the service actors it calls while they are free), and writes the
/// reply there, with no hop to the concurrency pool and back
/// (docs/decisions/0008-requests-answered-on-the-event-loop.md).
///
/// At most `limit` are answered at once; more get an immediate `overloaded`
/// RESPONSE. When the connection closes, the tasks still answering are
/// cancelled.
final class InboundRequests: Sendable {
    /// Runs on its caller's executor (`nonsending`), down to the handler: the
    /// answering task's, which prefers the event loop. Each plain `async`
    /// function on the way was a `swift_task_switch` that looked up the
    /// task's executor preference under its status record lock (4.5–6.4% of
    /// the node's samples, docs/performance.md "Speed, sixth pass").
    typealias Answer = nonisolated(nonsending) @Sendable (WireEnvelope) async -> WireEnvelope

    private struct State {
        var answer: Answer?
        var limit = 0
        var tasks: [UInt64: Task<Void, Never>] = [:]
        var nextID: UInt64 = 0
        var closed = false
    }
    private let state = Mutex(State())
    let executor: EventLoopTaskExecutor

    init(eventLoop: any EventLoop) {
        executor = EventLoopTaskExecutor(eventLoop: eventLoop)
    }

    /// Starts answering with `answer`, at most `limit` at once.
    func install(limit: Int, answer: @escaping Answer) {
        state.withLock { state in
            state.answer = answer
            state.limit = limit
        }
    }

    /// Answers `request` from `connection`, or returns false when no answer
    /// is installed yet (the request then waits in the inbound queue). The
    /// task is recorded under the lock it takes to remove itself, so it
    /// cannot end before it is recorded.
    func start(_ request: WireEnvelope, on connection: PeerConnection) -> Bool {
        enum Verdict { case notInstalled, closed, overloaded(Int), started }
        let verdict: Verdict = state.withLock { state in
            guard let answer = state.answer else { return .notInstalled }
            if state.closed { return .closed }
            guard state.tasks.count < state.limit else { return .overloaded(state.limit) }
            state.nextID &+= 1
            let id = state.nextID
            state.tasks[id] = Task(executorPreference: executor) { [self] in
                let reply = await answer(request)
                finished(id)
                connection.send(reply)
            }
            return .started
        }
        switch verdict {
        case .notInstalled: return false
        case .closed, .started: return true
        case .overloaded(let limit):
            let error = BusError.overloaded(ServiceAddress(request.address), limit: limit)
            connection.send(.response(to: request.correlationID, result: .failure(error), typeName: ""))
            return true
        }
    }

    private func finished(_ id: UInt64) {
        _ = state.withLock { $0.tasks.removeValue(forKey: id) }
    }

    /// The connection closed: cancels every request still being answered.
    func cancelAll() {
        let tasks = state.withLock { state in
            state.closed = true
            defer { state.tasks = [:] }
            return Array(state.tasks.values)
        }
        for task in tasks { task.cancel() }
    }
}
