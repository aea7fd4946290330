import Synchronization

/// The currency each user reads prices in ("≈" beside a fare in another;
/// issue #60), as the subscription service last said, kept for
/// ``maximumAge`` seconds so a search or a feed page costs no `GetUser`.
/// A change through this gateway (`PATCH /v1/me`) forgets the user's at
/// once; one made elsewhere (another gateway, `farelensctl`) shows within
/// ``maximumAge``.
///
/// A lock, not an actor: every search and feed page reads it, and a read
/// under a lock adds no hop to the request (docs/performance.md, the
/// gateway's 2026-11-29 "≈ in searches" figures).
final class UserCurrencies: Sendable {
    /// How long a user's currency is kept before the subscription service is asked again.
    static let maximumAge: Double = 60
    /// At most this many users are kept; past it the oldest half is forgotten.
    static let capacity = 10_000

    private struct Kept {
        let currency: String
        let at: Double
    }

    private let known = Mutex<[String: Kept]>([:])
    private let now: @Sendable () -> Double

    /// `now` is monotonic seconds (the rate limiter's clock).
    init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The user's currency ("" for none chosen): the one kept, or `ask`'s answer, then kept.
    func currency(of userID: String, ask: @Sendable () async throws -> String) async throws -> String {
        let instant = now()
        if let kept = known.withLock({ $0[userID] }), instant - kept.at < Self.maximumAge { return kept.currency }
        let currency = try await ask()
        known.withLock { known in
            if known.count >= Self.capacity {
                for userID in known.sorted(by: { $0.value.at < $1.value.at }).prefix(Self.capacity / 2).map(\.key) { known[userID] = nil }
            }
            known[userID] = Kept(currency: currency, at: instant)
        }
        return currency
    }

    /// Forgets the user's currency: the next read asks.
    func forget(_ userID: String) {
        _ = known.withLock { $0.removeValue(forKey: userID) }
    }
}
