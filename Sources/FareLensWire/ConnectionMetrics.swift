public import Metrics

/// Per-connection counters: frames and bytes each way, before and after
/// compression (`farelens_wire_*`, dimensioned by peer node name).
public final class ConnectionMetrics: Sendable {
    let framesIn: Counter
    let framesOut: Counter
    let wireBytesIn: Counter
    let wireBytesOut: Counter
    let payloadBytesIn: Counter
    let payloadBytesOut: Counter

    /// Creates counters labelled with the peer's name.
    public init(peer: String, factory: any MetricsFactory = MetricsSystem.factory) {
        let dims = [("peer", peer)]
        framesIn = Counter(label: "farelens_wire_frames_received_total", dimensions: dims, factory: factory)
        framesOut = Counter(label: "farelens_wire_frames_sent_total", dimensions: dims, factory: factory)
        wireBytesIn = Counter(label: "farelens_wire_bytes_received_total", dimensions: dims, factory: factory)
        wireBytesOut = Counter(label: "farelens_wire_bytes_sent_total", dimensions: dims, factory: factory)
        payloadBytesIn = Counter(label: "farelens_wire_payload_bytes_received_total", dimensions: dims, factory: factory)
        payloadBytesOut = Counter(label: "farelens_wire_payload_bytes_sent_total", dimensions: dims, factory: factory)
    }

    func received(wireBytes: Int, payloadBytes: Int) {
        framesIn.increment()
        wireBytesIn.increment(by: wireBytes)
        payloadBytesIn.increment(by: payloadBytes)
    }

    func sent(wireBytes: Int, payloadBytes: Int) {
        framesOut.increment()
        wireBytesOut.increment(by: wireBytes)
        payloadBytesOut.increment(by: payloadBytes)
    }
}
