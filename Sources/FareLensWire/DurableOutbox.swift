import FareLensBus
import FareLensMessages
import Metrics
import Synchronization

/// Durable events sent to one peer and not yet acknowledged by it: the
/// peer's *backlog*.
///
/// The outbox outlives connections: when the peer reconnects (the same node
/// restarted, or the link came back) everything still unacknowledged is sent
/// again in its original order, and the receiving bus drops what it already
/// had.
///
/// With a journal, a waiting envelope lives on disk only; memory keeps its
/// tag and acknowledgement callback, and redelivery reads it back. Without
/// one (tests, admin clients) envelopes stay in memory. Either way at most
/// ``capacity`` events wait: ``append(_:onAcknowledged:)`` never waits for
/// room, it refuses the event with `overloaded` and counts it in
/// `farelens_bridge_durable_rejected_total{peer}` (docs/bus.md, "A full
/// backlog").
final class DurableOutbox: Sendable {
    /// The cap on unacknowledged events (`bridge.durableBacklog`).
    let capacity: Int
    /// The peer this outbox sends to (the journal's key).
    let peer: String
    private let state = Mutex(State())
    /// Where the envelopes are kept so they survive a crash; nil keeps them in memory.
    private let journal: OutboxJournal?
    private let rejected: Counter

    private struct Entry {
        /// Nil once the journal holds it; set without a journal, while it is
        /// being written, or when writing it failed.
        var envelope: WireEnvelope?
        let onAcknowledged: (@Sendable () -> Void)?
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextTag: UInt64 = 0
    }

    /// Envelopes read back from the journal at a time when redelivering.
    static let redeliveryPage = 1024

    /// An outbox for `peer`, holding again whatever `journal` kept for it
    /// from an earlier run (redelivered when the peer next joins).
    init(capacity: Int, peer: String, journal: OutboxJournal? = nil, metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        self.capacity = max(1, capacity)
        self.peer = peer
        self.journal = journal
        rejected = Counter(label: "farelens_bridge_durable_rejected_total", dimensions: [("peer", peer)], factory: metricsFactory)
        guard let journal else { return }
        let restored = journal.tags(peer: peer)
        state.withLock { state in
            for tag in restored { state.entries[tag] = Entry(envelope: nil, onAcknowledged: nil) }
            state.nextTag = restored.max() ?? 0
        }
    }

    /// Events waiting for acknowledgement.
    var count: Int { state.withLock { $0.entries.count } }

    /// Adds an event and returns it with its delivery tag set (the tag the
    /// peer acknowledges). With a journal, the event is on disk when this returns.
    ///
    /// - Throws: ``BusError`` `overloaded`, naming the peer and the cap, when
    ///   ``capacity`` events already wait; the event is not kept. Never waits.
    func append(_ envelope: WireEnvelope, onAcknowledged: (@Sendable () -> Void)? = nil) throws(BusError) -> WireEnvelope {
        let tagged: WireEnvelope? = state.withLock { state in
            guard state.entries.count < capacity else { return nil }
            state.nextTag += 1
            var copy = envelope
            copy.correlationID = state.nextTag
            state.entries[state.nextTag] = Entry(envelope: copy, onAcknowledged: onAcknowledged)
            return copy
        }
        guard let tagged else {
            rejected.increment()
            throw BusError(
                kind: .overloaded, remoteCode: nil,
                message: "durable backlog for node '\(peer)' is full: \(capacity) events await its acknowledgement (bridge.durableBacklog); the event on '\(envelope.topic)' is not kept for it"
            )
        }
        if let journal, journal.record(peer: peer, tag: tagged.correlationID, envelope: tagged) {
            let waiting = state.withLock { state -> Bool in
                guard state.entries[tagged.correlationID] != nil else { return false }
                state.entries[tagged.correlationID]?.envelope = nil
                return true
            }
            // Acknowledged while it was being written (a redelivery raced it): drop the row too.
            if !waiting { journal.remove(peer: peer, tags: [tagged.correlationID]) }
        }
        return tagged
    }

    /// Removes acknowledged events and runs their callbacks.
    func acknowledge(_ tags: [UInt64]) {
        let callbacks = state.withLock { state in
            tags.compactMap { state.entries.removeValue(forKey: $0)?.onAcknowledged }
        }
        journal?.remove(peer: peer, tags: tags)
        for callback in callbacks { callback() }
    }

    /// Hands every unacknowledged event to `send`, oldest first, reading
    /// journaled ones back a page at a time.
    func forEachUnacknowledged(_ send: (WireEnvelope) -> Void) {
        let waiting = state.withLock { state in
            state.entries.keys.sorted().map { (tag: $0, envelope: state.entries[$0]?.envelope) }
        }
        var start = waiting.startIndex
        while start < waiting.endIndex {
            let page = waiting[start ..< min(start + Self.redeliveryPage, waiting.endIndex)]
            start = page.endIndex
            var stored: [UInt64: WireEnvelope] = [:]
            if let journal, page.contains(where: { $0.envelope == nil }) {
                for row in journal.envelopes(peer: peer, tags: page.first!.tag ... page.last!.tag) { stored[row.tag] = row.envelope }
            }
            for entry in page {
                if let envelope = entry.envelope ?? stored[entry.tag] { send(envelope) }
            }
        }
    }

    /// Drops everything (the peer is forgotten).
    ///
    /// - Returns: how many events were dropped.
    func discardAll() -> Int {
        let dropped = state.withLock { state in
            defer { state.entries.removeAll() }
            return state.entries.count
        }
        journal?.removeAll(peer: peer)
        return dropped
    }
}
