import FareLensServiceKit
import Synchronization

/// Collects "ready" from each hosted service; the node announces itself once
/// every one has reported.
final class ReadinessBoard: Sendable {
    private struct State {
        var pending: Set<String>
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(expecting names: [String]) {
        state = Mutex(State(pending: Set(names)))
    }

    func markReady(_ name: String) {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.pending.remove(name)
            guard state.pending.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every expected service is ready, or when the waiting
    /// task is cancelled (a service failed to start).
    func waitUntilAllReady() async {
        await withTaskCancellationHandler {
            await waitWithoutCancellation()
        } onCancel: {
            releaseWaiters()
        }
    }

    private func releaseWaiters() {
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private func waitWithoutCancellation() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                if state.pending.isEmpty || Task.isCancelled { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
