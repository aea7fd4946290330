import Metrics

/// The search service's own figures for `/metrics` (swift-metrics, so the
/// factory `farelens` bootstraps records them): cache hits and misses (hit
/// rate = hits / (hits + misses)) and each provider's quota use this period.
enum SearchMetrics {
    /// Searches answered from a fresh cache entry, and those that found
    /// none: created together, so both series exist from the first search.
    static let cache = (
        hits: Counter(label: "farelens_search_cache_hits_total"),
        misses: Counter(label: "farelens_search_cache_misses_total")
    )

    /// Calls counted against `provider`'s quota in the current period.
    static func quotaUsed(_ provider: String, _ used: Int64) {
        Gauge(label: "farelens_search_quota_used", dimensions: [("provider", provider)]).record(used)
    }

    /// Makes the cache counters now, so that `/metrics` shows them from the
    /// service's start (at 0) rather than from its first search; the quota
    /// gauges are recorded at start by ``QuotaLedger/recordUsage(of:at:)``.
    static func makeAll() {
        _ = cache
    }
}
