import FareLensBus
import FareLensMessages
import NIOCore
import Synchronization

/// The REQUESTs a connection is answering. Each one is answered in a task
/// of its own that prefers the connection's event loop: started on the loop
/// as the frame is decoded (running at once, until it first waits), it
/// decodes, routes and runs the handler there
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

    private let state = Mutex(RequestAdmission<Answer, Task<Void, Never>>())
    let executor: EventLoopTaskExecutor

    init(eventLoop: any EventLoop) {
        executor = EventLoopTaskExecutor(eventLoop: eventLoop)
    }

    /// Starts answering with `answer`, at most `limit` at once.
    func install(limit: Int, answer: @escaping Answer) {
        state.withLock { $0.install(limit: limit, answer: answer) }
    }

    /// Answers `request` from `connection`, or returns false when no answer
    /// is installed yet (the request then waits in the inbound queue).
    ///
    /// On the event loop (every request but those that came with the
    /// hello), the task starts at once, on this thread, inside the decoder's
    /// `channelRead`, and runs until its first suspension: an answer that
    /// never waits is written before the next frame is decoded, without the
    /// task's first job being queued on the loop and run a turn later.
    func start(_ request: WireEnvelope, on connection: PeerConnection) -> Bool {
        let verdict = state.withLock { $0.admit() }
        switch verdict {
        case .notInstalled: return false
        case .closed: return true
        case .admitted(let id, let answer):
            // Started outside the lock: the task may finish before `Task.immediate` returns.
            let body: @Sendable () async -> Void = { [self] in
                let reply = await answer(request)
                finished(id)
                connection.send(reply)
            }
            if executor.eventLoop.inEventLoop {
                record(Task.immediate(executorPreference: executor, operation: body), as: id)
            } else {
                record(Task(executorPreference: executor, operation: body), as: id)
            }
            return true
        case .overloaded(let limit):
            let error = BusError.overloaded(ServiceAddress(request.address), limit: limit)
            connection.send(.response(to: request.correlationID, result: .failure(error), typeName: ""))
            return true
        }
    }

    /// Keeps the task answering request `id` so the connection's close can
    /// cancel it: unless it has finished already, or the connection closed
    /// while it was being started (then it is cancelled now).
    private func record(_ task: Task<Void, Never>, as id: UInt64) {
        if state.withLock({ $0.record(task, as: id) }) { task.cancel() }
    }

    private func finished(_ id: UInt64) {
        state.withLock { $0.finished(id) }
    }

    /// The connection closed: cancels every request still being answered.
    func cancelAll() {
        for task in state.withLock({ $0.close() }) { task.cancel() }
    }
}
