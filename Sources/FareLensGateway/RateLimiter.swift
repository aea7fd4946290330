import Foundation
import Synchronization

/// Token buckets by key (a user id, a client address): each holds up to
/// `burst` tokens and gains `perSecond` a second; a request spends its cost
/// or is refused with the seconds until it could pass (docs/api.md, "Rate limits").
///
/// Time comes from an injected monotonic clock, so tests move it. The table
/// is bounded: past `maximumKeys`, buckets that have refilled completely
/// (they hold no memory of anything) are dropped first, then the oldest.
final class RateLimiter: Sendable {
    /// What a request's cost met.
    struct Decision: Sendable, Equatable {
        let allowed: Bool
        /// Tokens left after this request (whole ones).
        let remaining: Int
        /// Seconds until the request could pass; 0 when allowed.
        let retryAfterSeconds: Int
        /// Seconds until the bucket is full again.
        let resetSeconds: Int
        let limit: Int
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let burst: Double
    let perSecond: Double
    let maximumKeys: Int
    private let now: @Sendable () -> Double
    private let buckets = Mutex<[String: Bucket]>([:])

    /// - Parameter now: seconds on a monotonic clock.
    init(burst: Double, perSecond: Double, maximumKeys: Int = 100_000, now: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.burst = burst
        self.perSecond = perSecond
        self.maximumKeys = maximumKeys
        self.now = now
    }

    /// Spends `cost` from `key`'s bucket if it holds that much.
    func spend(_ cost: Double, for key: String) -> Decision {
        let at = now()
        return buckets.withLock { table in
            var bucket = table[key] ?? Bucket(tokens: burst, updated: at)
            bucket.tokens = min(burst, bucket.tokens + max(0, at - bucket.updated) * perSecond)
            bucket.updated = at
            let allowed = bucket.tokens >= cost
            if allowed { bucket.tokens -= cost }
            if table[key] == nil, table.count >= maximumKeys { Self.evict(&table, at: at, burst: burst, perSecond: perSecond) }
            table[key] = bucket
            let missing = max(0, cost - bucket.tokens)
            return Decision(
                allowed: allowed, remaining: Int(bucket.tokens.rounded(.down)),
                retryAfterSeconds: allowed ? 0 : max(1, Int((missing / perSecond).rounded(.up))),
                resetSeconds: Int(((burst - bucket.tokens) / perSecond).rounded(.up)), limit: Int(burst))
        }
    }

    /// Keys currently tracked (for tests and metrics).
    var trackedKeys: Int { buckets.withLock { $0.count } }

    private static func evict(_ table: inout [String: Bucket], at: Double, burst: Double, perSecond: Double) {
        let full = table.filter { $0.value.tokens + (at - $0.value.updated) * perSecond >= burst }.map(\.key)
        for key in full { table[key] = nil }
        if table.count >= 1, full.isEmpty, let oldest = table.min(by: { $0.value.updated < $1.value.updated })?.key { table[oldest] = nil }
    }

    /// The instant the monotonic seconds count from (the clock's own origin is not public).
    private static let origin = ContinuousClock.now

    /// Seconds on the monotonic clock, since ``origin``.
    @Sendable static func monotonicSeconds() -> Double {
        let parts = (ContinuousClock.now - origin).components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
