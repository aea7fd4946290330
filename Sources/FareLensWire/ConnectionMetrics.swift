public import Metrics
import NIOConcurrencyHelpers

/// Per-connection counters: frames and bytes each way, before and after
/// compression (`farelens_wire_*`, dimensioned by peer node name). A hub
/// accepts a connection before it knows who is calling: its frames count
/// under `peer="accepted"` until the hello names the peer (``name(_:)``).
public final class ConnectionMetrics: Sendable {
    /// A class, so taking the current set is one retain, not one per counter
    /// (every frame, both ways, takes it).
    private final class Handles: Sendable {
        let framesIn: Counter
        let framesOut: Counter
        let wireBytesIn: Counter
        let wireBytesOut: Counter
        let payloadBytesIn: Counter
        let payloadBytesOut: Counter

        init(peer: String, factory: any MetricsFactory) {
            let dims = [("peer", peer)]
            framesIn = Counter(label: "farelens_wire_frames_received_total", dimensions: dims, factory: factory)
            framesOut = Counter(label: "farelens_wire_frames_sent_total", dimensions: dims, factory: factory)
            wireBytesIn = Counter(label: "farelens_wire_bytes_received_total", dimensions: dims, factory: factory)
            wireBytesOut = Counter(label: "farelens_wire_bytes_sent_total", dimensions: dims, factory: factory)
            payloadBytesIn = Counter(label: "farelens_wire_payload_bytes_received_total", dimensions: dims, factory: factory)
            payloadBytesOut = Counter(label: "farelens_wire_payload_bytes_sent_total", dimensions: dims, factory: factory)
        }
    }

    private let handles: NIOLockedValueBox<Handles>
    private let factory: any MetricsFactory

    /// What a hub counts a connection under until its hello names the peer.
    static let acceptedPeer = "accepted"
    /// What a hub counts every admin client (each `farelensctl` run) under.
    static let adminClientsPeer = "admin-clients"
    /// What a spoke counts its connection to the hub under.
    static let hubPeer = "hub"

    /// Makes the counters of `peers` now, so that `/metrics` shows them at 0
    /// from the node's start rather than from the first connection: a hub's
    /// ``acceptedPeer`` and ``adminClientsPeer``, a spoke's ``hubPeer``.
    static func makeAll(peers: [String], factory: any MetricsFactory) {
        for peer in peers { _ = Handles(peer: peer, factory: factory) }
    }

    /// Creates counters labelled with the peer's name.
    public init(peer: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        handles = NIOLockedValueBox(Handles(peer: peer, factory: factory))
    }

    /// From now on, counts under `peer` (the name the hello gave).
    func name(_ peer: String) {
        let named = Handles(peer: peer, factory: factory)
        handles.withLockedValue { $0 = named }
    }

    func received(wireBytes: Int, payloadBytes: Int) {
        let current = handles.withLockedValue { $0 }
        current.framesIn.increment()
        current.wireBytesIn.increment(by: wireBytes)
        current.payloadBytesIn.increment(by: payloadBytes)
    }

    func sent(wireBytes: Int, payloadBytes: Int) {
        let current = handles.withLockedValue { $0 }
        current.framesOut.increment()
        current.wireBytesOut.increment(by: wireBytes)
        current.payloadBytesOut.increment(by: payloadBytes)
    }
}
