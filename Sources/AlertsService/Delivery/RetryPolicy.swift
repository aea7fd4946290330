/// When the outbox tries a failed delivery again, and when it gives up.
///
/// Attempt `n` (from 1) that asks for a retry is followed, if
/// `n < maxAttempts`, by attempt `n + 1` after
///
/// 1. the backoff `initialBackoff × 2^(n-1)`, capped at `maxBackoff`;
/// 2. jittered by a uniformly random factor in `1 ± jitter` (default ±20%),
///    and capped at `maxBackoff` again, so no delay exceeds it;
/// 3. raised to the receiver's `Retry-After` when that is later (never sooner
///    than it asked), a `Retry-After` beyond `maxRetryAfter` counting as
///    `maxRetryAfter`.
///
/// After attempt `maxAttempts` there is no delay (`nil`): the alert is
/// dead-lettered. With the defaults (8 attempts, 10 s, 30 min) the retries
/// come about 10 s, 20 s, 40 s, 80 s, 160 s, 320 s and 640 s apart, some 21
/// minutes in all.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included (at least 1).
    public var maxAttempts: Int
    /// The delay after the first failed attempt, before jitter.
    public var initialBackoff: Duration
    /// No backoff is longer.
    public var maxBackoff: Duration
    /// The jitter fraction, 0 ..< 1 (0.2: each delay is 80% to 120% of its backoff).
    public var jitter: Double
    /// The longest `Retry-After` honoured; longer requests wait this long.
    public var maxRetryAfter: Duration

    /// A policy; values out of range are clamped (attempts to at least 1,
    /// durations to at least zero, jitter to 0 ... 0.99).
    public init(
        maxAttempts: Int = 8, initialBackoff: Duration = .seconds(10), maxBackoff: Duration = .seconds(1800),
        jitter: Double = 0.2, maxRetryAfter: Duration = .seconds(3600)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = max(.zero, initialBackoff)
        self.maxBackoff = max(.zero, maxBackoff)
        self.jitter = jitter.isFinite ? min(max(jitter, 0), 0.99) : 0
        self.maxRetryAfter = max(.zero, maxRetryAfter)
    }

    /// How long to wait after attempt `attempt` (from 1) asked for a retry,
    /// or nil when it was the last attempt allowed (dead letter).
    ///
    /// - Parameters:
    ///   - retryAfter: the receiver's `Retry-After` (``DeliveryOutcome/retry(reason:retryAfter:)``).
    ///   - generator: the source of jitter (a seeded one in tests).
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil, using generator: inout some RandomNumberGenerator) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let cap = Self.seconds(maxBackoff)
        let exponent = Double(min(max(attempt, 1) - 1, 62))
        let backoff = min(Self.seconds(initialBackoff) * Double.pow2(exponent), cap)
        let factor = jitter > 0 ? Double.random(in: (1 - jitter) ... (1 + jitter), using: &generator) : 1
        var delay = Duration.seconds(min(backoff * factor, cap))
        if let retryAfter {
            delay = max(delay, min(max(.zero, retryAfter), maxRetryAfter))
        }
        return delay
    }

    /// ``delay(afterAttempt:retryAfter:using:)`` with the system's random numbers.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration? {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: attempt, retryAfter: retryAfter, using: &generator)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

extension Double {
    /// 2 to the power `exponent` (a whole number, 0 ... 62).
    fileprivate static func pow2(_ exponent: Double) -> Double {
        Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
