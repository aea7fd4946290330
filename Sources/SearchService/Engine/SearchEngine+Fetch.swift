import FareLensBus
import FareLensMessages
import Foundation

extension SearchEngine {
    /// Asks the providers for every query of `search`; on total failure,
    /// falls back to a cached answer at most 7 days old.
    func fetch(_ search: ValidatedSearch, key: String, parent: RequestContext?) async throws(SearchError) -> SearchCache.Entry {
        let queries = search.expandedQueries(today: CalendarDate.of(now(), in: TimeZones.zone(directory.timeZone(of: search.query.origin) ?? "UTC")))
        var offers: [FlightOffer] = []
        var providers: Set<String> = []
        var failures: [String] = []
        var calls = 0
        var anyAnswered = false
        for query in queries {
            if let simulated {
                do throws(ProviderError) {
                    offers += try await simulated.offers(for: query)
                    providers.insert(simulated.name)
                    anyAnswered = true
                } catch { failures.append(error.description) }
            }
            let (liveOffers, liveProvider, liveCalls, liveFailures) = await askLive(query, purpose: search.purpose, parent: parent)
            calls += liveCalls
            failures += liveFailures
            if let liveProvider {
                offers += liveOffers
                providers.insert(liveProvider)
                anyAnswered = true
            }
        }
        guard anyAnswered else {
            logger.warning("no provider answered", metadata: ["search": "\(key)", "reasons": "\(failures.joined(separator: "; "))"])
            guard var stale = cache.stale(key, now: now()) else { throw .noFaresAvailable(failures) }
            stale.isStale = true
            stale.providerCalls = calls
            return stale
        }
        var entry = SearchCache.Entry(offers: OfferMerger.merge(offers), providers: providers.sorted(), observedAt: now())
        cache.store(entry, for: key)
        entry.providerCalls = calls
        await observe(entry, search, parent: parent)
        return entry
    }

    /// The live chain: the first provider with quota left that answers.
    private func askLive(_ query: FareQuery, purpose: SearchPurpose, parent: RequestContext?) async -> ([FlightOffer], String?, Int, [String]) {
        var failures: [String] = []
        var calls = 0
        for provider in live {
            let at = now()
            let allowed: Bool
            do { allowed = try quota.allows(provider.name, purpose, at: at) } catch {
                failures.append("\(provider.name): quota ledger unavailable (\(error))")
                continue
            }
            guard allowed else {
                failures.append("\(provider.name): monthly quota reached for \(Self.purposeName(purpose))")
                continue
            }
            calls += 1
            let started = ContinuousClock.now
            var called = ProviderCalled()
            called.provider = provider.name
            called.purpose = purpose
            do {
                for crossing in try quota.charge(provider.name, at: at) { await warn(crossing, parent: parent) }
                called.quotaUsed = try quota.used(provider.name, at: at)
            } catch {
                logger.error("quota ledger write failed", metadata: ["provider": "\(provider.name)", "error": "\(error)"])
            }
            do throws(ProviderError) {
                let offers = try await provider.offers(for: query)
                called.success = true
                lastErrors.withLock { $0[provider.name] = "" }
                called.latencyMillis = Self.millis(since: started)
                try? await bus?.publish(called, parent: parent)
                return (offers, provider.name, calls, failures)
            } catch {
                called.errorCode = error.code
                lastErrors.withLock { $0[provider.name] = error.description }
                called.latencyMillis = Self.millis(since: started)
                try? await bus?.publish(called, parent: parent)
                failures.append(error.description)
                logger.warning("provider failed; trying the next", metadata: ["provider": "\(provider.name)", "error": "\(error.description)"])
            }
        }
        return ([], nil, calls, failures)
    }

    private func warn(_ crossing: QuotaLedger.Crossing, parent: RequestContext?) async {
        var warning = QuotaWarning()
        warning.provider = crossing.provider
        warning.used = crossing.used
        warning.limit = crossing.limit
        warning.thresholdPercent = Int32(crossing.percent)
        warning.period = crossing.period
        warning.atUnixMs = Int64(now().timeIntervalSince1970 * 1000)
        logger.warning("provider quota threshold crossed", metadata: ["provider": "\(crossing.provider)", "percent": "\(crossing.percent)", "used": "\(crossing.used)", "limit": "\(crossing.limit)"])
        try? await bus?.publish(warning, parent: parent)
    }

    /// Publishes every kept offer as a `FareObserved` (durable topic).
    private func observe(_ entry: SearchCache.Entry, _ search: ValidatedSearch, parent: RequestContext?) async {
        guard let bus else { return }
        for merged in entry.offers {
            let offer = merged.offer
            guard let first = offer.outbound.segments.first, let last = offer.outbound.segments.last else { continue }
            var fare = FareObserved()
            fare.origin = first.fromAirport
            fare.destination = last.toAirport
            fare.originCountry = directory.airport(first.fromAirport)?.country ?? ""
            fare.destinationCountry = directory.airport(last.toAirport)?.country ?? ""
            if let date = CalendarDate(iso: first.departureLocal.prefix(10)) { fare.departureDate = date.message }
            if let back = offer.inbound.segments.first, let date = CalendarDate(iso: back.departureLocal.prefix(10)) { fare.returnDate = date.message }
            fare.cabin = offer.cabin
            fare.price = offer.price
            fare.travellers = Int32(search.query.travellers)
            fare.provider = offer.provider
            fare.simulated = offer.simulated
            fare.observedAtUnixMs = Int64(entry.observedAt.timeIntervalSince1970 * 1000)
            fare.carrier = offer.carrier
            fare.stops = offer.outbound.stops
            fare.durationMinutes = offer.outbound.durationMinutes
            fare.offerID = offer.offerID
            fare.purpose = search.purpose
            try? await bus.publish(fare, parent: parent)
        }
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
