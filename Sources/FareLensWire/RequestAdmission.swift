/// Which REQUESTs a connection is answering, as a state machine without
/// I/O: ``InboundRequests`` keeps it under its lock and starts, refuses or
/// cancels tasks as its transitions say. Generic over the answer and the
/// task handle, so its tests need neither.
///
/// `notInstalled` → `answering` when the owner installs its answer;
/// either → `closed` when the connection closes, for good.
struct RequestAdmission<Answer, Handle> {
    private struct Answering {
        var answer: Answer
        var limit: Int
        /// The requests being answered, by id; nil until the task answering
        /// it is recorded (it may run, and even finish, before that).
        var handles: [UInt64: Handle?] = [:]
        var nextID: UInt64 = 0
    }

    private enum State {
        /// No answer installed yet: requests wait in the inbound queue.
        case notInstalled
        case answering(Answering)
        /// The connection closed: nothing more is admitted.
        case closed
        /// Only while a transition changes `answering` in place (so its table is not copied).
        case modifying
    }

    private var state: State = .notInstalled

    /// What to do with a request that arrived.
    enum Verdict {
        /// No answer yet: leave it queued.
        case notInstalled
        /// The connection closed: drop it (its caller learns from the close).
        case closed
        /// `limit` are being answered: refuse it with `overloaded`.
        case overloaded(limit: Int)
        /// Answer it with `answer`; record its task under `id`.
        case admitted(id: UInt64, answer: Answer)
    }

    /// Requests being answered now.
    var answering: Int {
        if case .answering(let answering) = state { answering.handles.count } else { 0 }
    }

    /// Installs (or replaces) the answer and the most answered at once. A closed connection stays closed.
    mutating func install(limit: Int, answer: Answer) {
        switch state {
        case .notInstalled:
            state = .answering(Answering(answer: answer, limit: limit))
        case .answering(var answering):
            state = .modifying
            answering.answer = answer
            answering.limit = limit
            state = .answering(answering)
        case .closed, .modifying:
            break
        }
    }

    /// Admits a request that arrived, or says why not.
    mutating func admit() -> Verdict {
        switch state {
        case .notInstalled, .modifying:
            return .notInstalled
        case .closed:
            return .closed
        case .answering(var answering):
            guard answering.handles.count < answering.limit else { return .overloaded(limit: answering.limit) }
            state = .modifying
            answering.nextID &+= 1
            answering.handles[answering.nextID] = .some(nil)
            state = .answering(answering)
            return .admitted(id: answering.nextID, answer: answering.answer)
        }
    }

    /// Keeps the handle of admitted request `id`'s task, unless it finished
    /// already. Returns true when the connection closed meanwhile: the
    /// caller cancels the task now.
    mutating func record(_ handle: Handle, as id: UInt64) -> Bool {
        switch state {
        case .closed:
            return true
        case .answering(var answering):
            guard answering.handles.index(forKey: id) != nil else { return false }
            state = .modifying
            answering.handles[id] = .some(handle)
            state = .answering(answering)
            return false
        case .notInstalled, .modifying:
            return false
        }
    }

    /// Request `id` has been answered.
    mutating func finished(_ id: UInt64) {
        guard case .answering(var answering) = state else { return }
        state = .modifying
        answering.handles.removeValue(forKey: id)
        state = .answering(answering)
    }

    /// The connection closed: returns the handles of the tasks still answering, to cancel.
    mutating func close() -> [Handle] {
        defer { state = .closed }
        guard case .answering(let answering) = state else { return [] }
        return answering.handles.values.compactMap { $0 }
    }
}
