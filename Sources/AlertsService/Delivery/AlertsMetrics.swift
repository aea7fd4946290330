import FareLensMessages
import Metrics

/// The alerts service's own figures for `/metrics` (swift-metrics, so the
/// factory `farelens` bootstraps records them).
enum AlertsMetrics {
    /// Alerts pending delivery in the outbox, as of the last delivery pass.
    static let outboxDepth = Gauge(label: "farelens_alerts_outbox_pending")

    /// One recorded decision (`sent`, `held`, `capped`, …).
    static func decided(_ decision: AlertDecision) {
        Counter(label: "farelens_alerts_decided_total", dimensions: [("decision", "\(decision)")]).increment()
    }
}
