import FareLensMessages
import Metrics

/// The alerts service's own figures for `/metrics` (swift-metrics, so the
/// factory `farelens` bootstraps records them).
enum AlertsMetrics {
    /// Alerts pending delivery in the outbox, as of the last delivery pass.
    static let outboxDepth = Gauge(label: "farelens_alerts_outbox_pending")

    /// One counter per recorded decision, labelled with its name
    /// (`not_alertable`, ``AlertDecision/name``), made once: decisions are
    /// recorded by the thousand, and making a counter looks it up in the
    /// registry under a lock. The unset value has no series.
    private static let decisions: [Int: Counter] = Dictionary(uniqueKeysWithValues: AlertDecision.recorded.compactMap { decision in
        decision.name.map { (decision.rawValue, Counter(label: "farelens_alerts_decided_total", dimensions: [("decision", $0)])) }
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

    /// Recorded decisions (`sent`, `held`, `capped`, …), each counter
    /// incremented once by its share of `rows` (a batch's are nearly all of
    /// one decision: once a row, the lookup and increment were a cost of every decision).
    static func decided(_ rows: [AlertRow]) {
        var counts: [Int: Int] = [:]
        for index in rows.indices { counts[rows[index].decision, default: 0] += 1 }
        for (decision, count) in counts { decisions[decision]?.increment(by: Int64(count)) }
    }
}
