import FareLensMessages
import Metrics

/// The alerts service's own figures for `/metrics` (swift-metrics, so the
/// factory `farelens` bootstraps records them).
enum AlertsMetrics {
    /// Alerts pending delivery in the outbox, as of the last delivery pass.
    static let outboxDepth = Gauge(label: "farelens_alerts_outbox_pending")

    /// One counter per decision, made once: decisions are recorded by the
    /// thousand, and making a counter looks it up in the registry under a lock.
    private static let decisions: [Int: Counter] = Dictionary(uniqueKeysWithValues: AlertDecision.allCases.map { decision in
        (decision.rawValue, Counter(label: "farelens_alerts_decided_total", dimensions: [("decision", "\(decision)")]))
    })

    /// Events set aside because their decisions cannot be recorded for a
    /// reason in their data (``AlertsService/setAside(_:content:failure:)``).
    static let setAside = Counter(label: "farelens_alerts_events_set_aside_total")

    /// Makes every figure now, so that `/metrics` shows each from the
    /// service's start (a counter at 0) rather than from its first change:
    /// a scraper alerting on `farelens_alerts_events_set_aside_total` sees
    /// it before the first event is set aside.
    static func makeAll() {
        _ = outboxDepth
        _ = decisions
        _ = setAside
    }

    /// One recorded decision (`sent`, `held`, `capped`, …).
    static func decided(_ decision: AlertDecision) {
        decisions[decision.rawValue]?.increment()
    }
}
