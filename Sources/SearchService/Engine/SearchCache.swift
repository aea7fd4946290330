public import FareLensMessages
public import Foundation
import Synchronization

/// Search results by query, with lifetimes by purpose (SPEC §1: user
/// searches 5 minutes, watchlist checks 30 minutes) and kept up to 7 days
/// as the stale fallback. Bounded: beyond `capacity` entries the oldest go.
public final class SearchCache: Sendable {
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
    }

    /// How long an answer is fresh for a purpose.
    public static func lifetime(_ purpose: SearchPurpose) -> TimeInterval {
        purpose == .userSearch ? 5 * 60 : 30 * 60
    }

    /// How old a stale fallback may be.
    public static let staleLimit: TimeInterval = 7 * 24 * 3600

    private let entries = Mutex<[String: Entry]>([:])
    private let offers = Mutex<[String: (offer: MergedOffer, observedAt: Date)]>([:])
    let capacity: Int

    public init(capacity: Int = 10_000) { self.capacity = capacity }

    /// The entry for `key` if it is fresh for `purpose` at `now`.
    public func fresh(_ key: String, for purpose: SearchPurpose, now: Date) -> Entry? {
        guard let entry = entries.withLock({ $0[key] }), now.timeIntervalSince(entry.observedAt) <= Self.lifetime(purpose) else { return nil }
        return entry
    }

    /// The entry for `key` if it is at most 7 days old (the stale fallback).
    public func stale(_ key: String, now: Date) -> Entry? {
        guard let entry = entries.withLock({ $0[key] }), now.timeIntervalSince(entry.observedAt) <= Self.staleLimit else { return nil }
        return entry
    }

    /// Stores an answer and its offers (for booking options).
    public func store(_ entry: Entry, for key: String) {
        entries.withLock { entries in
            entries[key] = entry
            if entries.count > capacity {
                let oldest = entries.sorted { $0.value.observedAt < $1.value.observedAt }.prefix(max(1, capacity / 10)).map(\.key)
                for key in oldest { entries.removeValue(forKey: key) }
            }
        }
        offers.withLock { offers in
            for merged in entry.offers { offers[merged.offer.offerID] = (merged, entry.observedAt) }
            if offers.count > capacity * 20 {
                let cutoff = entry.observedAt.addingTimeInterval(-Self.staleLimit)
                offers = offers.filter { $0.value.observedAt >= cutoff }
            }
        }
    }

    /// A served offer by id, while at most 7 days old.
    public func offer(_ id: String, now: Date) -> MergedOffer? {
        guard let stored = offers.withLock({ $0[id] }), now.timeIntervalSince(stored.observedAt) <= Self.staleLimit else { return nil }
        return stored.offer
    }
}
