import Synchronization

/// The admission gate of one service address: bounds its in-flight requests
/// and lets it drain (stop accepting, wait for in-flight work) on shutdown.
///
/// Admission is two atomics, no lock: every in-process request passes here
/// twice. An `enter` that finds the bound reached undoes its increment and
/// fails, so the count can exceed the limit only for a moment and only while
/// the requests actually admitted are at the limit. Draining uses the
/// store-then-load pattern on both sides (sequentially consistent): `drain`
/// clears `accepting` then reads the count; `leave` lowers the count then
/// reads `accepting`; one of them always sees the other, so the last
/// request to leave wakes the drainer, or the drainer sees none in flight.
@usableFromInline
final class ServiceSlot: Sendable {
    let address: ServiceAddress
    let limit: Int
    private let count = Atomic<Int>(0)
    private let accepting = Atomic<Bool>(true)
    private let drainWaiters = Mutex<[CheckedContinuation<Void, Never>]>([])

    init(address: ServiceAddress, limit: Int) {
        self.address = address
        self.limit = limit
    }

    /// Admits one request or throws `overloaded` / `serviceUnavailable`.
    @usableFromInline
    func enter() throws(BusError) {
        guard accepting.load(ordering: .sequentiallyConsistent) else { throw draining }
        guard count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue <= limit else {
            leave()
            throw .overloaded(address, limit: limit)
        }
        // Draining began between the check and the increment: undo.
        guard accepting.load(ordering: .sequentiallyConsistent) else {
            leave()
            throw draining
        }
    }

    private var draining: BusError { .serviceUnavailable(address, reason: "draining for shutdown") }

    /// Ends one admitted request; wakes drainers when the last one ends.
    @usableFromInline
    func leave() {
        guard count.wrappingSubtract(1, ordering: .sequentiallyConsistent).newValue == 0,
              !accepting.load(ordering: .sequentiallyConsistent) else { return }
        let waiters = drainWaiters.withLock { waiters in
            // Re-checked under the lock: a request admitted meanwhile keeps the drainer waiting.
            guard count.load(ordering: .sequentiallyConsistent) == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether new requests are admitted (false once draining starts).
    var isAccepting: Bool { accepting.load(ordering: .sequentiallyConsistent) }

    /// Requests currently being handled.
    var inFlight: Int { max(0, count.load(ordering: .sequentiallyConsistent)) }

    /// Refuses new requests from now on, then waits until in-flight ones end.
    func drain() async {
        accepting.store(false, ordering: .sequentiallyConsistent)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = drainWaiters.withLock { waiters in
                if count.load(ordering: .sequentiallyConsistent) == 0 { return true }
                waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
