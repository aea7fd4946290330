import Synchronization

/// A latch for tests: tasks `wait()` until `open()`; `arrivals` counts waiters.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var arrivals = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    public init() {}

    /// Suspends until the gate opens (returns at once if it is open).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                state.arrivals += 1
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    /// Releases every waiter, now and later.
    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// How many tasks have called `wait()`.
    public var arrivals: Int { state.withLock { $0.arrivals } }

    /// Polls until `arrivals` reaches `count` (bounded: about 10 s).
    public func waitForArrivals(_ count: Int) async throws {
        for _ in 0..<10_000 where arrivals < count { try await Task.sleep(for: .milliseconds(1)) }  // safe: bounded test polling
    }
}
