#if NATS
import Synchronization

/// The stream's answers to publishes in flight together, gathered: once
/// the last publish is made (``seal()``) and every one answered, they are
/// handed over in the publishes' order.
final class GatheredAcknowledgements: Sendable {
    private struct State {
        var errors: [NATSError?] = []
        var unanswered = 0
        var sealed = false
    }
    private let state = Mutex(State())
    private let done: @Sendable ([NATSError?]) -> Void

    init(done: @escaping @Sendable ([NATSError?]) -> Void) {
        self.done = done
    }

    /// One more publish to wait for: its slot.
    func expect() -> Int {
        state.withLock { state in
            state.errors.append(nil)
            state.unanswered += 1
            return state.errors.count - 1
        }
    }

    func complete(_ slot: Int, with error: NATSError?) {
        let all: [NATSError?]? = state.withLock { state in
            state.errors[slot] = error
            state.unanswered -= 1
            return state.sealed && state.unanswered == 0 ? state.errors : nil
        }
        if let all { done(all) }
    }

    /// No more publishes: hands the answers over now if all came.
    func seal() {
        let all: [NATSError?]? = state.withLock { state in
            state.sealed = true
            return state.unanswered == 0 ? state.errors : nil
        }
        if let all { done(all) }
    }
}
#endif
