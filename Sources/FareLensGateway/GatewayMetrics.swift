import Metrics
import Synchronization

/// The gateway's swift-metrics (on the node's Prometheus endpoint):
/// requests and their latency per route and status, tokens refused by
/// reason, requests refused by rate limits.
struct GatewayMetrics: Sendable {
    /// The counters and timers already made, by route: making one per request costs a registry lookup each.
    private let handles = Handles()

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
