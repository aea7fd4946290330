import FareLensMessages
import Synchronization

/// Durable events sent to one peer and not yet acknowledged by it.
///
/// The outbox outlives connections: when the peer reconnects (the same node
/// restarted, or the link came back) everything still unacknowledged is sent
/// again in its original order, and the receiving bus drops what it already
/// had. At most ``capacity`` events wait; a publisher that finds it full
/// waits for acknowledgements — the bus's durable backpressure, carried
/// across the socket.
final class DurableOutbox: Sendable {
    let capacity: Int
    private let state = Mutex(State())
    /// Where the events are also written, so they survive a crash; nil keeps them in memory only.
    private let journal: OutboxJournal?
    /// The peer this outbox sends to (the journal's key).
    let peer: String

    private struct Entry {
        var envelope: WireEnvelope
        let onAcknowledged: (@Sendable () -> Void)?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextTag: UInt64 = 0
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// An outbox for `peer`, holding again whatever `journal` kept for it
    /// from an earlier run (redelivered when the peer next joins).
    init(capacity: Int, peer: String = "", journal: OutboxJournal? = nil) {
        self.capacity = max(1, capacity)
        self.peer = peer
        self.journal = journal
        guard let journal else { return }
        let restored = journal.entries(peer: peer)
        state.withLock { state in
            for (tag, envelope) in restored { state.entries[tag] = Entry(envelope: envelope, onAcknowledged: nil) }
            state.nextTag = restored.map(\.tag).max() ?? 0
        }
    }

    /// Events waiting for acknowledgement.
    var count: Int { state.withLock { $0.entries.count } }

    /// Adds an event, waiting while the outbox is full, and returns it with
    /// its delivery tag set (the tag the peer acknowledges).
    func append(_ envelope: WireEnvelope, onAcknowledged: (@Sendable () -> Void)? = nil) async -> WireEnvelope {
        while true {
            let tagged: WireEnvelope? = state.withLock { state in
                guard state.entries.count < capacity else { return nil }
                state.nextTag += 1
                var copy = envelope
                copy.correlationID = state.nextTag
                state.entries[state.nextTag] = Entry(envelope: copy, onAcknowledged: onAcknowledged)
                return copy
            }
            if let tagged {
                journal?.record(peer: peer, tag: tagged.correlationID, envelope: tagged)
                return tagged
            }
            await withCheckedContinuation { continuation in
                let full = state.withLock { state in
                    guard state.entries.count >= capacity else { return false }
                    state.roomWaiters.append(continuation)
                    return true
                }
                if !full { continuation.resume() }
            }
        }
    }

    /// Removes acknowledged events, runs their callbacks and wakes publishers.
    func acknowledge(_ tags: [UInt64]) {
        let (callbacks, waiters) = state.withLock { state in
            var callbacks: [@Sendable () -> Void] = []
            for tag in tags {
                if let entry = state.entries.removeValue(forKey: tag), let callback = entry.onAcknowledged {
                    callbacks.append(callback)
                }
            }
            let waiters = state.roomWaiters
            state.roomWaiters.removeAll()
            return (callbacks, waiters)
        }
        journal?.remove(peer: peer, tags: tags)
        for callback in callbacks { callback() }
        for waiter in waiters { waiter.resume() }
    }

    /// Every unacknowledged event, oldest first, for redelivery.
    func unacknowledged() -> [WireEnvelope] {
        state.withLock { state in
            state.entries.keys.sorted().map { state.entries[$0]!.envelope }
        }
    }

    /// Drops everything (the peer is forgotten), releasing waiting publishers.
    func discardAll() -> Int {
        let (dropped, waiters) = state.withLock { state in
            defer { state.entries.removeAll(); state.roomWaiters.removeAll() }
            return (state.entries.count, state.roomWaiters)
        }
        journal?.removeAll(peer: peer)
        for waiter in waiters { waiter.resume() }
        return dropped
    }
}
