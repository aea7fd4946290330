import FareLensBus
import FareLensMessages
import Foundation

extension SearchEngine {
    /// What asking the providers for one date pair gave.
    struct QueryOutcome: Sendable {
        var offers: [FlightOffer] = []
        var providers: Set<String> = []
        var failures: [String] = []
        var calls = 0
        var answered = false
    }

    /// Asks the providers for every date pair of `search`, at most
    /// ``queryConcurrency`` at once; on total failure, falls back to a cached
    /// answer at most 7 days old. Runs as a flight's task, outside the actor.
    ///
    /// - Parameter deadline: the deadline of the caller that started the
    ///   flight; every provider call ends by it.
    nonisolated func fetch(_ search: ValidatedSearch, key: String, deadline: ContinuousClock.Instant?, parent: RequestContext?) async -> Result<SearchCache.Entry, SearchError> {
        let today = CalendarDate.of(now(), in: TimeZones.zone(directory.timeZone(of: search.query.origin) ?? "UTC"))
        let queries = search.expandedQueries(today: today)
        let outcomes = await withTaskGroup(of: QueryOutcome.self) { group -> [QueryOutcome] in
            var pending = queries[...]
            var outcomes: [QueryOutcome] = []
            // At most `queryConcurrency` in flight: one more starts as each ends.
            for _ in 0..<queryConcurrency {
                guard let query = pending.popFirst() else { break }
                group.addTask { await self.ask(query, purpose: search.purpose, deadline: deadline, parent: parent) }
            }
            while let outcome = await group.next() {
                outcomes.append(outcome)
                if let query = pending.popFirst() {
                    group.addTask { await self.ask(query, purpose: search.purpose, deadline: deadline, parent: parent) }
                }
            }
            return outcomes
        }
        if Task.isCancelled { return .failure(.cancelled) }
        let calls = outcomes.reduce(0) { $0 + $1.calls }
        guard outcomes.contains(where: \.answered) else {
            let failures = outcomes.flatMap(\.failures)
            logger.warning("no provider answered", metadata: ["search": "\(key)", "reasons": "\(failures.joined(separator: "; "))"])
            guard var stale = await staleEntry(key) else { return .failure(.noFaresAvailable(failures)) }
            stale.isStale = true
            stale.providerCalls = calls
            return .success(stale)
        }
        let offers = OfferMerger.merge(outcomes.flatMap(\.offers))
        var entry = SearchCache.Entry(offers: offers, providers: outcomes.reduce(into: Set<String>()) { $0.formUnion($1.providers) }.sorted(), observedAt: now())
        await store(entry, for: key, query: search.query)
        entry.providerCalls = calls
        observe(entry, search, parent: parent)
        return .success(entry)
    }

    /// One date pair: the simulated market (when present) and the live chain,
    /// the first live provider with quota left that answers.
    nonisolated func ask(_ query: FareQuery, purpose: SearchPurpose, deadline: ContinuousClock.Instant?, parent: RequestContext?) async -> QueryOutcome {
        var outcome = QueryOutcome()
        if let simulated {
            do throws(ProviderError) {
                outcome.offers += try await simulated.offers(for: query, deadline: deadline)
                outcome.providers.insert(simulated.name)
                outcome.answered = true
            } catch { outcome.failures.append(error.description) }
        }
        for provider in live {
            guard !Task.isCancelled else { break }
            switch await reserveCall(provider.name, purpose, parent: parent) {
            case .refused(let reason):
                outcome.failures.append(reason)
                continue
            case .reserved(let used):
                outcome.calls += 1
                let started = ContinuousClock.now
                var called = ProviderCalled()
                called.provider = provider.name
                called.purpose = purpose
                called.quotaUsed = used
                do throws(ProviderError) {
                    let offers = try await provider.offers(for: query, deadline: deadline)
                    called.success = true
                    called.latencyMillis = Self.millis(since: started)
                    await recordOutcome(provider.name, error: nil)
                    events?.enqueue(called, parent: parent)
                    outcome.offers += offers
                    outcome.providers.insert(provider.name)
                    outcome.answered = true
                    return outcome
                } catch {
                    called.errorCode = error.code
                    called.latencyMillis = Self.millis(since: started)
                    await recordOutcome(provider.name, error: error)
                    events?.enqueue(called, parent: parent)
                    outcome.failures.append(error.description)
                    logger.warning("provider failed; trying the next", metadata: ["provider": "\(provider.name)", "error": "\(error.description)"])
                }
            }
        }
        return outcome
    }

    static func purposeName(_ purpose: SearchPurpose) -> String {
        switch purpose {
        case .userSearch: "user searches"
        case .proWatchlist: "Pro watchlist checks"
        case .freeWatchlist: "Free watchlist checks"
        default: "background sweeps"
        }
    }

    static func millis(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
    }
}
