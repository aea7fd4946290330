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
}
