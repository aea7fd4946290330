import Synchronization

/// A reply slot that is completed exactly once — by the handler, the
/// deadline watchdog, a cancelled caller or a dead peer, whichever comes
/// first — and resumes its waiter exactly once.
final class OneShotReply<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, any Error>)
        case completed(Result<Value, any Error>)
        case delivered
    }
    private let state = Mutex<State>(.empty)

    init() {}

    /// Suspends until the slot is completed (or returns at once if it already is).
    func wait() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Value, any Error>? = state.withLock { state in
                switch state {
                case .empty:
                    state = .waiting(continuation)
                    return nil
                case .completed(let result):
                    state = .delivered
                    return result
                case .waiting, .delivered:
                    preconditionFailure("OneShotReply.wait() called twice")
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// Completes the slot; returns false if it was already completed.
    @discardableResult
    func complete(_ result: Result<Value, any Error>) -> Bool {
        let waiter: CheckedContinuation<Value, any Error>?? = state.withLock { state in
            switch state {
            case .empty:
                state = .completed(result)
                return .some(nil)
            case .waiting(let continuation):
                state = .delivered
                return .some(continuation)
            case .completed, .delivered:
                return nil
            }
        }
        guard let waiter else { return false }
        waiter?.resume(with: result)
        return true
    }
}
