import Metrics

/// The gateway's swift-metrics (on the node's Prometheus endpoint):
/// requests and their latency per route and status, tokens refused by
/// reason, requests refused by rate limits.
struct GatewayMetrics: Sendable {
    func record(method: String, route: String, status: Int, elapsed: Duration) {
        let dimensions = [("method", method), ("route", route), ("status", "\(status)")]
        Counter(label: "farelens_gateway_requests_total", dimensions: dimensions).increment()
        Timer(label: "farelens_gateway_request_duration_seconds", dimensions: [("method", method), ("route", route)], preferredDisplayUnit: .seconds)
            .recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }

    func tokenRejected(_ reason: String) {
        Counter(label: "farelens_gateway_tokens_rejected_total", dimensions: [("reason", reason)]).increment()
    }

    func clickNotRecorded() {
        Counter(label: "farelens_gateway_clicks_not_recorded_total").increment()
    }

    func rateLimited(_ bucket: String) {
        Counter(label: "farelens_gateway_rate_limited_total", dimensions: [("bucket", bucket)]).increment()
    }
}
