import FareLensMessages
import Foundation

/// Airport autocomplete answers, cached for 1 hour (SPEC §1) against the
/// injected clock, in an LRU bounded by entries and estimated bytes.
///
/// An actor: the cache is its state. Ranking the directory is pure and runs
/// outside it (``autocomplete(_:)`` is nonisolated and hops in only to read
/// and to store). Its isolated methods never suspend, so there is no
/// state to re-check after an await and no `State` machine beyond the cache.
actor AirportAnswers {
    /// How long an answer is served from the cache.
    static let lifetime: TimeInterval = 3600

    /// Ranks a request against the directory (pure; outside the actor).
    typealias Ranking = @Sendable (AirportAutocompleteRequest) throws(SearchError) -> AirportAutocompleteResponse

    nonisolated let rank: Ranking
    nonisolated let now: @Sendable () -> Date
    private var answers: LRUCache<String, (response: AirportAutocompleteResponse, at: Date)>

    /// Answers from `directory`, at most `maxEntries` kept within `maxBytes`.
    init(directory: AirportDirectory, maxEntries: Int = 5_000, maxBytes: Int = 16 << 20, now: @escaping @Sendable () -> Date) {
        self.init(maxEntries: maxEntries, maxBytes: maxBytes, now: now) { (request) throws(SearchError) in try directory.autocomplete(request) }
    }

    /// Answers ranked by `rank` (the directory's autocomplete in production).
    init(maxEntries: Int, maxBytes: Int, now: @escaping @Sendable () -> Date, rank: @escaping Ranking) {
        self.rank = rank
        self.now = now
        answers = LRUCache(maxEntries: maxEntries, maxCost: maxBytes)
    }

    /// Answers `AirportAutocompleteRequest`: from the cache when an answer at
    /// most an hour old exists, else ranked afresh and stored.
    nonisolated func autocomplete(_ request: AirportAutocompleteRequest) async throws(SearchError) -> AirportAutocompleteResponse {
        let key = "\(request.limit)|\(request.query.lowercased())"
        let at = now()
        if let cached = await cached(key, at: at) { return cached }
        let response = try rank(request)
        await store(response, for: key, at: at)
        return response
    }

    /// Answers kept (tests, diagnostics).
    var count: Int { answers.count }

    private func cached(_ key: String, at: Date) -> AirportAutocompleteResponse? {
        guard let (response, stored) = answers.value(forKey: key), at.timeIntervalSince(stored) <= Self.lifetime else { return nil }
        return response
    }

    private func store(_ response: AirportAutocompleteResponse, for key: String, at: Date) {
        answers.insert((response, at), forKey: key, cost: Self.estimatedBytes(response, key: key))
    }

    /// About 200 bytes per suggestion (airport record fields and boxes) plus the key.
    static func estimatedBytes(_ response: AirportAutocompleteResponse, key: String) -> Int {
        96 + key.utf8.count + response.suggestions.count * 200
    }
}
