import DequeModule

/// The durable events recently received from other nodes, by publisher:
/// what lets the bus recognise a true redelivery (the same event id again)
/// without ever dropping an event that merely arrived out of sequence order.
///
/// Per publisher it remembers the last `perPublisher` distinct ids in
/// arrival order (older ones are forgotten first), and at most
/// `publishers` publishers (the one first heard longest ago is forgotten
/// first; a restarted node publishes under a new id).
/// The bridge redelivers only events it sent and that were not yet
/// acknowledged, and never holds more than its backlog cap per peer, so a
/// window at least that large recognises every redelivery (docs/bus.md).
struct RedeliveryWindow: Sendable {
    /// What the bus should do with an arriving durable event.
    enum Verdict {
        /// First arrival: deliver it; settle the given settlement.
        case deliver(DeliverySettlement)
        /// Seen before: do not deliver; acknowledge once the original is settled.
        case redelivery(DeliverySettlement)
    }

    private struct Seen: Sendable {
        var settlements: [UInt64: DeliverySettlement] = [:]
        var order: Deque<UInt64> = []
    }

    let perPublisher: Int
    let publishers: Int
    private var seen: [String: Seen] = [:]
    private var publisherOrder: Deque<String> = []

    init(perPublisher: Int, publishers: Int) {
        self.perPublisher = max(1, perPublisher)
        self.publishers = max(1, publishers)
    }

    /// Records the arrival of `id` and says whether it is new.
    mutating func admit(_ id: EventID, onSettled: (@Sendable () -> Void)?, shutdown: ShutdownFlag) -> Verdict {
        if let existing = seen[id.publisher]?.settlements[id.sequence] {
            return .redelivery(existing)
        }
        if seen[id.publisher] == nil {
            seen[id.publisher] = Seen()
            publisherOrder.append(id.publisher)
            if publisherOrder.count > publishers, let oldest = publisherOrder.popFirst() { seen[oldest] = nil }
        }
        let settlement = DeliverySettlement(onSettled: onSettled, shutdown: shutdown)
        seen[id.publisher]!.settlements[id.sequence] = settlement
        seen[id.publisher]!.order.append(id.sequence)
        if seen[id.publisher]!.order.count > perPublisher, let oldest = seen[id.publisher]!.order.popFirst() {
            seen[id.publisher]!.settlements[oldest] = nil
        }
        return .deliver(settlement)
    }

    /// Forgets `id`, so that its next arrival is delivered again.
    mutating func forget(_ id: EventID) {
        seen[id.publisher]?.settlements[id.sequence] = nil
    }

    /// Ids remembered for `publisher` (tests, metrics).
    func count(for publisher: String) -> Int { seen[publisher]?.order.count ?? 0 }
}
