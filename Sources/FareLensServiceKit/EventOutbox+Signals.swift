import DequeModule
import Synchronization

/// The published events this node is done with (the bus settled them),
/// until their rows are removed; each settlement wakes the relay.
final class SettledSequences: Sendable {
    /// Settled and not yet forgotten; and the highest sequence forgotten,
    /// below which a late settlement (a copy published again after a
    /// refusal, settling after its row went) is not kept.
    private let settled = Mutex((sequences: Set<Int64>(), forgottenThrough: Int64.min))
    private let wake: AsyncStream<Void>.Continuation

    init(wake: AsyncStream<Void>.Continuation) {
        self.wake = wake
    }

    /// This node is done with event `sequence`.
    func settle(_ sequence: Int64) {
        settled.withLock { settled in
            if sequence > settled.forgottenThrough { settled.sequences.insert(sequence) }
        }
        wake.yield()
    }

    /// How many of `sequences`, from the first, are settled.
    func settledPrefixCount(of sequences: Deque<Int64>) -> Int {
        settled.withLock { settled in sequences.prefix { settled.sequences.contains($0) }.count }
    }

    /// How many settlements are kept (for tests: none outlives its row).
    var keptCount: Int { settled.withLock { $0.sequences.count } }

    /// Forgets `sequences`, a settled prefix in ascending order (their rows are removed).
    func forget(_ sequences: some Sequence<Int64>) {
        settled.withLock { settled in
            for sequence in sequences {
                settled.sequences.remove(sequence)
                settled.forgottenThrough = max(settled.forgottenThrough, sequence)
            }
        }
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
