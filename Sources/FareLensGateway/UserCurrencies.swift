/// The currency each user reads prices in ("≈" beside a fare in another;
/// issue #60), as the subscription service last said, kept for
/// ``maximumAge`` seconds so a search or a feed page costs no `GetUser`.
/// A change through this gateway (`PATCH /v1/me`) forgets the user's at
/// once; one made elsewhere (another gateway, `farelensctl`) shows within
/// ``maximumAge``.
actor UserCurrencies {
    /// How long a user's currency is kept before the subscription service is asked again.
    static let maximumAge: Double = 60
    /// At most this many users are kept; past it the oldest half is forgotten.
    static let capacity = 10_000
    private var known: [String: (currency: String, at: Double)] = [:]
    private let now: @Sendable () -> Double

    /// `now` is monotonic seconds (the rate limiter's clock).
    init(now: @escaping @Sendable () -> Double) {
        self.now = now
    }

    /// The user's currency ("" for none chosen): the one kept, or `ask`'s answer, then kept.
    func currency(of userID: String, ask: @Sendable () async throws -> String) async throws -> String {
        let instant = now()
        if let kept = known[userID], instant - kept.at < Self.maximumAge { return kept.currency }
        let currency = try await ask()
        if known.count >= Self.capacity {
            let oldest = known.sorted { $0.value.at < $1.value.at }.prefix(Self.capacity / 2).map(\.key)
            for userID in oldest { known[userID] = nil }
        }
        known[userID] = (currency, instant)
        return currency
    }

    /// Forgets the user's currency: the next read asks.
    func forget(_ userID: String) {
        known[userID] = nil
    }
}
