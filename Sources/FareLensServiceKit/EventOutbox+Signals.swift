import DequeModule
import Synchronization

/// The published events this node is done with (the bus settled them),
/// until their rows are removed; each settlement wakes the relay.
final class SettledSequences: Sendable {
    private let settled = Mutex(Set<Int64>())
    private let wake: AsyncStream<Void>.Continuation

    init(wake: AsyncStream<Void>.Continuation) {
        self.wake = wake
    }

    /// This node is done with event `sequence`.
    func settle(_ sequence: Int64) {
        settled.withLock { _ = $0.insert(sequence) }
        wake.yield()
    }

    /// How many of `sequences`, from the first, are settled.
    func settledPrefixCount(of sequences: Deque<Int64>) -> Int {
        settled.withLock { settled in sequences.prefix { settled.contains($0) }.count }
    }

    /// Forgets `sequences` (their rows are removed).
    func forget(_ sequences: some Sequence<Int64>) {
        settled.withLock { settled in for sequence in sequences { settled.remove(sequence) } }
    }
}

/// Whether a transaction with events committed since the relay last looked.
final class CommitFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A transaction with events committed.
    func raise() { flag.store(true, ordering: .releasing) }

    /// Whether one did since the last call; lowers the flag.
    func take() -> Bool { flag.exchange(false, ordering: .acquiring) }
}
