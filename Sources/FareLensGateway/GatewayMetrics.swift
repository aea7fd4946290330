import Metrics
import Synchronization

/// The gateway's swift-metrics (on the node's Prometheus endpoint):
/// requests and their latency per route and status, tokens refused by
/// reason, requests refused by rate limits.
struct GatewayMetrics: Sendable {
    /// The counters and timers already made, by route: making one per request costs a registry lookup each.
    private let handles = Handles()

    /// The rate-limit buckets ``rateLimited(_:)`` counts under.
    static let buckets = ["user", "sign-in"]

    /// Makes the counters whose labels are known in advance now, so that
    /// `/metrics` shows them at 0 from the gateway's start: tokens refused
    /// by each reason, requests refused by each bucket, clicks not
    /// recorded. A route's request count and latency appear with its first
    /// answer (they are per route and status).
    init() {
        for reason in SessionKeys.Rejection.allCases { _ = Counter(label: "farelens_gateway_tokens_rejected_total", dimensions: [("reason", reason.rawValue)]) }
        for bucket in Self.buckets { _ = Counter(label: "farelens_gateway_rate_limited_total", dimensions: [("bucket", bucket)]) }
        _ = Counter(label: "farelens_gateway_clicks_not_recorded_total")
    }

    func record(method: String, route: String, status: Int, elapsed: Duration) {
        let (counter, timer) = handles.for(method: method, route: route, status: status)
        counter.increment()
        timer.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }

    private final class Handles: Sendable {
        private let made = Mutex<[String: (Counter, Timer)]>([:])

        func `for`(method: String, route: String, status: Int) -> (Counter, Timer) {
            let key = "\(method) \(route) \(status)"
            if let found = made.withLock({ $0[key] }) { return found }
            let pair = (
                Counter(label: "farelens_gateway_requests_total", dimensions: [("method", method), ("route", route), ("status", "\(status)")]),
                Timer(label: "farelens_gateway_request_duration_seconds", dimensions: [("method", method), ("route", route)], preferredDisplayUnit: .seconds)
            )
            made.withLock { $0[key] = pair }
            return pair
        }
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
