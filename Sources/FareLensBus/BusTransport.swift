/// The seam between the bus and other processes. The bus hands a transport
/// every request whose address has no local handler and every published
/// event; service code never sees a transport. The Unix-socket bridge is one
/// implementation; local delivery needs none.
public protocol BusTransport: Sendable {
    /// Whether a peer reachable now hosts `address`.
    func hosts(_ address: ServiceAddress) -> Bool
    /// Sends a request to the peer hosting `address` (`R.address`, or a
    /// per-instance address) and waits for the reply, failing with a
    /// ``BusError`` by the context's deadline. Runs on the caller's
    /// executor (`nonsending`): no executor hop of its own on the way out.
    nonisolated(nonsending) func send<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response
    /// Forwards an event to peers that subscribed to its topic. For durable
    /// topics the event is journaled for every peer that wants it before
    /// this returns.
    ///
    /// - Throws: ``BusError`` `overloaded` when a durable event finds a
    ///   peer's backlog at its cap (the event is not queued for that peer);
    ///   never waits for room.
    func forward<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError)
    /// Forwards `batch` in order, as ``forward(_:metadata:)`` would one by
    /// one, and says how many of them, from the first, it forwarded. What
    /// follows a refused event is not forwarded (or may have been, and is
    /// forwarded again under the same ids by a caller that retries).
    /// A default does it one event after another.
    func forward(batch: [ForwardedEvent]) async -> BatchOutcome
}

/// An event and its metadata, as a batch hands them to a transport.
public struct ForwardedEvent: Sendable {
    public let event: any BusEvent
    public let metadata: EventMetadata
    public init(event: any BusEvent, metadata: EventMetadata) {
        self.event = event
        self.metadata = metadata
    }
}

/// How far a batch went: its first `count` events were forwarded (or
/// published); `refusal` says why the next one was not (nil when all were).
public struct BatchOutcome: Sendable, Equatable {
    public let count: Int
    public let refusal: BusError?
    public init(count: Int, refusal: BusError?) {
        self.count = count
        self.refusal = refusal
    }
}

extension BusTransport {
    /// Forwards `batch` one event after another, stopping at the first
    /// refused. A transport that can keep many in flight at once (NATS:
    /// many JetStream publishes, one wait for their acknowledgements)
    /// implements it itself.
    public func forward(batch: [ForwardedEvent]) async -> BatchOutcome {
        await forwardOneByOne(batch)
    }

    /// `batch` through ``forward(_:metadata:)``, one event after another,
    /// stopping at the first refused: the default ``forward(batch:)``, for a
    /// transport that wraps it (a test's, recording batches).
    public func forwardOneByOne(_ batch: [ForwardedEvent]) async -> BatchOutcome {
        for (index, item) in batch.enumerated() {
            do throws(BusError) { try await forwardOpened(item.event, metadata: item.metadata) } catch {
                return BatchOutcome(count: index, refusal: error)
            }
        }
        return BatchOutcome(count: batch.count, refusal: nil)
    }

    private func forwardOpened<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError) {
        try await forward(event, metadata: metadata)
    }
}
