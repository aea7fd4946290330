@testable import AlertsService
import FareLensTesting
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    @Test("without jitter the backoff doubles from the initial delay up to the cap, and stops at the attempt limit")
    func sequence() {
        let policy = RetryPolicy(maxAttempts: 8, initialBackoff: .seconds(10), maxBackoff: .seconds(300), jitter: 0)
        var generator = SplitMix64(seed: 1)
        let delays = (1 ... 9).map { policy.delay(afterAttempt: $0, using: &generator) }
        #expect(delays == [.seconds(10), .seconds(20), .seconds(40), .seconds(80), .seconds(160), .seconds(300), .seconds(300), nil, nil])
    }

    @Test("the defaults: 8 attempts, 10 s doubling, capped at 30 min")
    func defaults() {
        let policy = RetryPolicy(jitter: 0)
        var generator = SplitMix64(seed: 1)
        let delays = (1 ... 8).map { policy.delay(afterAttempt: $0, using: &generator) }
        #expect(delays == [.seconds(10), .seconds(20), .seconds(40), .seconds(80), .seconds(160), .seconds(320), .seconds(640), nil])
        #expect(RetryPolicy() == RetryPolicy(maxAttempts: 8, initialBackoff: .seconds(10), maxBackoff: .seconds(1800), jitter: 0.2))
    }

    @Test("jitter stays within ±20% of the backoff, never above the cap, and repeats with the same seed")
    func jitter() {
        let policy = RetryPolicy(maxAttempts: 100, initialBackoff: .seconds(10), maxBackoff: .seconds(600))
        var first = SplitMix64(seed: 42)
        var second = SplitMix64(seed: 42)
        let run = (1 ..< 100).map { policy.delay(afterAttempt: $0, using: &first)! }
        let again = (1 ..< 100).map { policy.delay(afterAttempt: $0, using: &second)! }
        #expect(run == again)
        for (index, delay) in run.enumerated() {
            let backoff = min(10.0 * Double(1 << min(index, 40)), 600)
            let seconds = RetryPolicy.seconds(delay)
            #expect(seconds >= backoff * 0.8 - 1e-9 && seconds <= min(backoff * 1.2, 600) + 1e-9, "attempt \(index + 1): \(delay)")
        }
        // Not all the same: the jitter spreads them.
        #expect(Set(run.suffix(20)).count >= 5)
        var third = SplitMix64(seed: 43)
        #expect((1 ..< 100).map { policy.delay(afterAttempt: $0, using: &third)! } != run)
    }

    @Test("Retry-After is honoured: never sooner than asked, up to the maximum it may ask for")
    func retryAfter() {
        let policy = RetryPolicy(maxAttempts: 5, initialBackoff: .seconds(10), maxBackoff: .seconds(60), jitter: 0, maxRetryAfter: .seconds(3600))
        var generator = SplitMix64(seed: 7)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(7), using: &generator) == .seconds(10))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(45), using: &generator) == .seconds(45))
        #expect(policy.delay(afterAttempt: 2, retryAfter: .seconds(600), using: &generator) == .seconds(600))
        #expect(policy.delay(afterAttempt: 2, retryAfter: .seconds(86_400), using: &generator) == .seconds(3600))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .zero, using: &generator) == .seconds(10))
        // The attempt limit wins over Retry-After.
        #expect(policy.delay(afterAttempt: 5, retryAfter: .seconds(7), using: &generator) == nil)
        let jittered = RetryPolicy(maxAttempts: 5, initialBackoff: .seconds(10), maxBackoff: .seconds(60))
        for _ in 0 ..< 50 {
            #expect(jittered.delay(afterAttempt: 1, retryAfter: .seconds(30), using: &generator)! >= .seconds(30))
        }
    }

    @Test("out-of-range values are clamped; huge attempt numbers do not overflow")
    func clamped() {
        let policy = RetryPolicy(maxAttempts: 0, initialBackoff: .seconds(-1), maxBackoff: .seconds(5), jitter: 7)
        #expect(policy.maxAttempts == 1 && policy.initialBackoff == .zero && policy.jitter == 0.99)
        #expect(policy.delay(afterAttempt: 1) == nil)
        let long = RetryPolicy(maxAttempts: .max, initialBackoff: .seconds(1), maxBackoff: .seconds(90), jitter: 0)
        #expect(long.delay(afterAttempt: 10_000) == .seconds(90))
        #expect(long.delay(afterAttempt: 0) == .seconds(1))
    }
}
