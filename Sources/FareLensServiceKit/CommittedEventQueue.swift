import DequeModule
import Synchronization

/// The events handed to an ``EventOutbox`` at commit, in commit order, so
/// that its relay need not read back what the service has just written. A
/// copy of what the store holds, never the only one: when it would exceed
/// ``limit`` events it is emptied and its ``generation`` moves on, and the
/// relay reads the store until it has caught up again.
final class CommittedEventQueue: Sendable {
    /// One transaction's events: sequences `first ..< first + count`, made
    /// on demand; the first `taken` of them are gone.
    private struct Chunk {
        let first: Int64
        let count: Int
        var taken = 0
        let event: @Sendable (Int) -> OutboxEvent
    }

    private struct State {
        var chunks = Deque<Chunk>()
        var events = 0
        var generation = 0
    }

    /// The most events held; beyond it the queue is emptied.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Moves on each time the queue is emptied for want of room: events
    /// committed in a generation the relay did not follow may be missing.
    var generation: Int { state.withLock { $0.generation } }

    /// Adds one transaction's `count` events, from sequence `first`.
    func append(first: Int64, count: Int, event: @escaping @Sendable (Int) -> OutboxEvent) {
        guard count > 0 else { return }
        state.withLock { state in
            guard state.events + count <= limit else {
                state.chunks.removeAll()
                state.events = 0
                state.generation += 1
                return
            }
            state.chunks.append(Chunk(first: first, count: count, event: event))
            state.events += count
        }
    }

    /// The held events after `sequence`, at most `limit`, in order, dropping
    /// those up to it; nil when the queue is no longer in `generation`.
    func take(after sequence: Int64, limit: Int, generation: Int) -> [OutboxEvent]? {
        let taken: [(Chunk, Range<Int>)]? = state.withLock { state in
            guard state.generation == generation else { return nil }
            var taken: [(Chunk, Range<Int>)] = []
            var room = limit
            while room > 0, let chunk = state.chunks.first {
                // Those up to `sequence` were read from the store meanwhile.
                let start = max(chunk.taken, Int(min(Int64(chunk.count), max(0, sequence + 1 - chunk.first))))
                let range = start ..< min(chunk.count, start + room)
                if !range.isEmpty { taken.append((chunk, range)) }
                room -= range.count
                state.events -= range.upperBound - chunk.taken
                if range.upperBound == chunk.count {
                    state.chunks.removeFirst()
                } else {
                    state.chunks[0].taken = range.upperBound
                }
            }
            return taken
        }
        // Made outside the lock: the writer appends meanwhile.
        return taken?.flatMap { chunk, range in range.map { chunk.event($0) } }
    }
}
