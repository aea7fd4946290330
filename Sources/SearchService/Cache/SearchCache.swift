public import FareLensMessages
public import Foundation

/// Search answers by query, with lifetimes by purpose (SPEC §1: user
/// searches 5 minutes, watchlist checks 30 minutes), kept up to 7 days as
/// the stale fallback, and the index of served offers (booking options).
///
/// Both are LRU caches bounded by entries and by estimated bytes
/// (``SearchCacheLimits``), so memory stays flat however many distinct
/// searches arrive. A value type owned by ``SearchEngine`` (an actor).
public struct SearchCache: Sendable {
    /// One cached answer.
    public struct Entry: Sendable {
        public let offers: [MergedOffer]
        public let providers: [String]
        public let observedAt: Date
        /// Live provider calls made to build it (not stored meaning: per fetch).
        public var providerCalls = 0
        /// True when served as the stale fallback.
        public var isStale = false

        public init(offers: [MergedOffer], providers: [String], observedAt: Date) {
            self.offers = offers
            self.providers = providers
            self.observedAt = observedAt
        }

        /// Estimated bytes held, for the byte bound.
        var estimatedBytes: Int {
            offers.reduce(128 + providers.count * 24) { $0 + $1.estimatedBytes }
        }
    }

    /// A served offer kept for booking options.
    struct StoredOffer: Sendable {
        let offer: MergedOffer
        let observedAt: Date
        /// The search that found it (nil for answers stored without one).
        let query: FareQuery?
    }

    /// How long an answer is fresh for a purpose.
    public static func lifetime(_ purpose: SearchPurpose) -> TimeInterval {
        purpose == .userSearch ? 5 * 60 : 30 * 60
    }

    /// How old a stale fallback may be.
    public static let staleLimit: TimeInterval = 7 * 24 * 3600

    private var answers: LRUCache<String, Entry>
    private var offers: LRUCache<String, StoredOffer>

    /// An empty cache within `limits`.
    public init(limits: SearchCacheLimits = SearchCacheLimits()) {
        answers = LRUCache(maxEntries: limits.answerEntries, maxCost: limits.answerBytes)
        offers = LRUCache(maxEntries: limits.offerEntries, maxCost: limits.offerBytes)
    }

    /// The entry for `key` if it is fresh for `purpose` at `now`.
    mutating func fresh(_ key: String, for purpose: SearchPurpose, now: Date) -> Entry? {
        guard let entry = answers.value(forKey: key), now.timeIntervalSince(entry.observedAt) <= Self.lifetime(purpose) else {
            SearchMetrics.cache.misses.increment()
            return nil
        }
        SearchMetrics.cache.hits.increment()
        return entry
    }

    /// The entry for `key` if it is at most 7 days old (the stale fallback).
    mutating func stale(_ key: String, now: Date) -> Entry? {
        guard let entry = answers.value(forKey: key), now.timeIntervalSince(entry.observedAt) <= Self.staleLimit else { return nil }
        return entry
    }

    /// Stores an answer and indexes its offers (for booking options). O(1)
    /// per entry stored: each insert evicts only least recently used entries.
    /// `query` is the search that found the answer, kept with each offer so
    /// booking options can say how to find its fare again.
    mutating func store(_ entry: Entry, for key: String, query: FareQuery? = nil) {
        answers.insert(entry, forKey: key, cost: entry.estimatedBytes)
        for merged in entry.offers {
            offers.insert(StoredOffer(offer: merged, observedAt: entry.observedAt, query: query), forKey: merged.offer.offerID, cost: merged.estimatedBytes)
        }
    }

    /// A served offer by id, while at most 7 days old.
    mutating func offer(_ id: String, now: Date) -> MergedOffer? {
        storedOffer(id, now: now)?.offer
    }

    /// A served offer by id with the search that found it, while at most 7 days old.
    mutating func storedOffer(_ id: String, now: Date) -> StoredOffer? {
        guard let stored = offers.value(forKey: id), now.timeIntervalSince(stored.observedAt) <= Self.staleLimit else { return nil }
        return stored
    }

    /// Answers and offers kept, and their estimated bytes (diagnostics, tests).
    var occupancy: (answers: Int, answerBytes: Int, offers: Int, offerBytes: Int) {
        (answers.count, answers.totalCost, offers.count, offers.totalCost)
    }
}

/// The bounds of the search caches (`search.cache.*`, docs/operations.md).
public struct SearchCacheLimits: Sendable, Equatable {
    /// Search answers kept (`search.cache.answers.maxEntries`, 10,000).
    public var answerEntries = 10_000
    /// Their estimated bytes (`search.cache.answers.maxMebibytes`, 64 MiB).
    public var answerBytes = 64 << 20
    /// Served offers kept for booking options (`search.cache.offers.maxEntries`, 200,000).
    public var offerEntries = 200_000
    /// Their estimated bytes (`search.cache.offers.maxMebibytes`, 128 MiB).
    public var offerBytes = 128 << 20
    /// Airport autocomplete answers kept (`search.cache.airports.maxEntries`, 5,000).
    public var airportEntries = 5_000
    /// Their estimated bytes (`search.cache.airports.maxMebibytes`, 16 MiB).
    public var airportBytes = 16 << 20

    /// The defaults above.
    public init() {}
}

extension MergedOffer {
    /// Estimated bytes held by one offer and its quotes: a fixed part for the
    /// message and its boxes, plus the text it carries.
    var estimatedBytes: Int {
        let segments = offer.outbound.segments + offer.inbound.segments
        let text = offer.bookingLink.utf8.count + offer.offerID.utf8.count + offer.flightNumbers.reduce(0) { $0 + $1.utf8.count + 16 }
        let segmentBytes = segments.reduce(0) { $0 + 160 + $1.departureLocal.utf8.count + $1.arrivalLocal.utf8.count + $1.departureTimeZone.utf8.count + $1.arrivalTimeZone.utf8.count }
        let quoteBytes = quotes.reduce(0) { $0 + 96 + $1.link.utf8.count + $1.provider.utf8.count }
        return 384 + text + segmentBytes + quoteBytes
    }
}
