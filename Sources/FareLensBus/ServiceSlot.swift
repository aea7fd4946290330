import Synchronization

/// The admission gate of one service address: bounds its in-flight requests
/// and lets it drain (stop accepting, wait for in-flight work) on shutdown.
final class ServiceSlot: Sendable {
    private struct State {
        var inFlight = 0
        var accepting = true
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }
    let address: ServiceAddress
    let limit: Int
    private let state = Mutex(State())

    init(address: ServiceAddress, limit: Int) {
        self.address = address
        self.limit = limit
    }

    /// Admits one request or throws `overloaded` / `serviceUnavailable`.
    func enter() throws(BusError) {
        let verdict: BusError? = state.withLock { state in
            guard state.accepting else { return .serviceUnavailable(address, reason: "draining for shutdown") }
            guard state.inFlight < limit else { return .overloaded(address, limit: limit) }
            state.inFlight += 1
            return nil
        }
        if let verdict { throw verdict }
    }

    /// Ends one admitted request; wakes drainers when the last one ends.
    func leave() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.inFlight -= 1
            guard state.inFlight == 0, !state.drainWaiters.isEmpty else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether new requests are admitted (false once draining starts).
    var isAccepting: Bool { state.withLock { $0.accepting } }

    /// Requests currently being handled.
    var inFlight: Int { state.withLock { $0.inFlight } }

    /// Refuses new requests from now on, then waits until in-flight ones end.
    func drain() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                state.accepting = false
                if state.inFlight == 0 { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
