public import FareLensBus
public import FareLensMessages

/// A transport that can carry a request already encoded as an envelope: the
/// hub hands it the requests of its socket's clients (`farelensctl`) for
/// addresses no spoke and no local handler serves, so a node joined to NATS
/// answers its local admin clients for the whole namespace.
public protocol EnvelopeRelay: Sendable {
    /// Whether a node reachable through it hosts `address`.
    func hosts(_ address: ServiceAddress) -> Bool
    /// Every address a node reachable through it hosts now: the hub
    /// announces them as its own to its clients, which then send it those
    /// requests.
    var reachableAddresses: Set<String> { get }
    /// The nodes reachable through it, for `farelensctl status` (``NodeStatus/overNats`` set).
    func nodeStatuses() -> [NodeStatus]
    /// Sends `request` to the address it names and waits for the reply
    /// envelope, failing with a ``BusError`` by `dueAt`.
    nonisolated(nonsending) func call(_ request: consuming WireEnvelope, dueAt: BusInstant) async throws(BusError) -> WireEnvelope
}
