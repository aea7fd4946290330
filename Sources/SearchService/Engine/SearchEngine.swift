public import FareLensBus
public import FareLensMessages
public import Foundation
public import Logging

/// Answers flight searches (SPEC §1): validation, cache, coalescing, the
/// simulated market and the live provider chain under quota, merge and
/// de-duplication, the stale fallback, and the events every search emits.
///
/// An actor: the answer cache, the offer index, the flights in progress and
/// the last error per provider are its state. Validation, provider calls
/// (simulated pricing, HTTP) and response building are nonisolated and run
/// outside it; a search hops in to look up the cache and to join or start a
/// flight, and again to store what a flight fetched. Events go through a
/// ``DeferredPublisher`` drained by ``run()``, so no search waits on event
/// backpressure.
public actor SearchEngine {
    private enum State {
        /// Answering searches.
        case serving
        /// ``run()`` has ended (shutdown): searches are refused, flights cancelled.
        case stopped
    }

    nonisolated let validator: SearchValidator
    nonisolated let directory: AirportDirectory
    /// Always asked when present (not live: no quota).
    nonisolated let simulated: (any FareProvider)?
    /// Live providers in fallback order (Amadeus, then Travelpayouts): the
    /// first that answers is used.
    nonisolated let live: [any FareProvider]
    nonisolated let quota: QuotaLedger
    /// The search's events, published after the reply (nil without a bus).
    nonisolated let events: DeferredPublisher?
    /// The bus's clock, on which a request's deadline is made (``BusClock``).
    nonisolated let busClock: BusClock
    nonisolated let now: @Sendable () -> Date
    nonisolated let logger: Logger
    /// At most this many date pairs of one flexible search are asked at once.
    nonisolated let queryConcurrency: Int

    private var state = State.serving
    var cache: SearchCache
    var coalescer = Coalescer<SearchCache.Entry>()
    /// The last failure per live provider ("" after a success), for quota status.
    var lastErrors: [String: String] = [:]

    /// Creates an engine.
    ///
    /// - Parameter queryConcurrency: date pairs of a flexible search asked at once (default 4).
    public init(
        directory: AirportDirectory, simulated: (any FareProvider)?, live: [any FareProvider], cache: SearchCache,
        quota: QuotaLedger, bus: MessageBus?, logger: Logger, queryConcurrency: Int = 4, now: @escaping @Sendable () -> Date
    ) {
        self.validator = SearchValidator(directory: directory)
        self.directory = directory
        self.simulated = simulated
        self.live = live
        self.cache = cache
        self.quota = quota
        self.events = bus.map { DeferredPublisher(bus: $0, owner: "search", logger: logger) }
        self.busClock = bus?.configuration.clock ?? .continuous
        self.logger = logger
        self.queryConcurrency = max(1, queryConcurrency)
        self.now = now
    }

    /// Publishes the engine's events until cancelled (then what is queued),
    /// and stops the engine. Run it from the service's `run()`.
    public nonisolated func run() async {
        await events?.run()
        await stop()
    }

    /// Answers `SearchFlightsRequest`.
    ///
    /// - Parameter context: the request's context: its deadline bounds every
    ///   provider call (with each provider's own timeout), its trace goes on
    ///   the events.
    public nonisolated func search(_ request: SearchFlightsRequest, context: RequestContext? = nil) async throws(SearchError) -> SearchFlightsResponse {
        let started = ContinuousClock.now
        var report = SearchCompleted()
        report.userID = request.userID
        report.purpose = request.purpose
        report.origin = request.origin
        report.destination = request.destination
        do throws(SearchError) {
            let search = try validator.validate(request, now: now())
            let key = "\(search.query) flex\(search.flexibleDays)"
            let (entry, source) = try await answer(search, key: key, context: context)
            var response = try Self.response(entry, search, fromCache: source == .cache)
            switch source {
            case .cache:
                report.cacheHit = true
            case .fetched, .coalesced:
                report.coalesced = source == .coalesced
                report.providerCalls = source == .coalesced ? 0 : Int32(entry.providerCalls)
                if entry.isStale { response.stale = true; response.staleReason = Self.staleReason }
            }
            report.stale = response.stale
            report.offerCount = Int32(response.offers.count)
            finish(report, started: started, context: context)
            return response
        } catch {
            report.errorCode = error.code
            finish(report, started: started, context: context)
            throw error
        }
    }

    static let staleReason = "Live prices unavailable, showing cached results"

    /// Where an answer came from.
    enum Source { case cache, fetched, coalesced }

    /// The cached answer for `key`, or the result of the flight fetching it:
    /// an identical flight in progress is joined, else one is started.
    private func answer(_ search: ValidatedSearch, key: String, context: RequestContext?) async throws(SearchError) -> (SearchCache.Entry, Source) {
        guard case .serving = state else { throw .stopping }
        if let entry = cache.fresh(key, for: search.purpose, now: now()) { return (entry, .cache) }
        let flight: UInt64
        let source: Source
        if let running = coalescer.join(key) {
            (flight, source) = (running, .coalesced)
        } else {
            let id = coalescer.nextID()
            // Isolated to the engine (it lands here); the fetch itself runs outside.
            let task = Task {
                // The providers' calls are bounded in real time: the time the bus's clock leaves the request.
                let result = await self.fetch(search, key: key, deadline: context.map { self.busClock.realDeadline($0.dueAt) }, parent: context)
                self.land(key, flight: id, result)
            }
            coalescer.start(key, id: id, task: task)
            (flight, source) = (id, .fetched)
        }
        let waiter = coalescer.nextID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Coalescer<SearchCache.Entry>.Waiter) in
                guard coalescer.add(continuation, id: waiter, to: key, flight: flight) else {
                    continuation.resume(returning: .failure(.cancelled))
                    return
                }
                if Task.isCancelled { leave(key, flight: flight, waiter: waiter) }
            }
        } onCancel: {
            // Rare path: the waiter's own task is cancelled (its caller gave
            // up or hit its deadline). Hop in to leave the flight.
            Task { await self.leave(key, flight: flight, waiter: waiter) }
        }
        return (try result.get(), source)
    }

    /// A waiter leaves its flight; the last one to leave cancels it.
    private func leave(_ key: String, flight: UInt64, waiter: UInt64) {
        let (continuation, abandoned) = coalescer.leave(key, flight: flight, waiter: waiter)
        continuation?.resume(returning: .failure(.cancelled))
        if let abandoned {
            logger.debug("every caller left; cancelling the provider calls", metadata: ["search": "\(key)"])
            abandoned.cancel()
        }
    }

    /// A flight has its result: resume its waiters. Re-checked: the flight
    /// may have been abandoned (and another started) while it ran.
    private func land(_ key: String, flight: UInt64, _ result: Result<SearchCache.Entry, SearchError>) {
        guard let waiters = coalescer.land(key, flight: flight) else { return }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    private func stop() {
        state = .stopped
        for (waiters, task) in coalescer.abandonAll() {
            task.cancel()
            for waiter in waiters { waiter.resume(returning: .failure(.stopping)) }
        }
    }

    /// A served offer by id, while its answer is at most 7 days old (booking options).
    public func offer(_ id: String) -> MergedOffer? {
        cache.offer(id, now: now())
    }

    /// A served offer by id and the search that finds its fare again
    /// (``RecheckSearch``; nil when the offer was stored without its search).
    public func offerAndRecheck(_ id: String) -> (offer: MergedOffer, recheck: SearchFlightsRequest?)? {
        guard let stored = cache.storedOffer(id, now: now()) else { return nil }
        return (stored.offer, stored.query.flatMap { RecheckSearch.request(for: stored.offer.offer, foundBy: $0) })
    }

    /// Stores a fetched answer and the search that found it (called by the flight that fetched it).
    func store(_ entry: SearchCache.Entry, for key: String, query: FareQuery) {
        cache.store(entry, for: key, query: query)
    }

    /// The cached answer for `key` at most 7 days old, for the stale fallback.
    func staleEntry(_ key: String) -> SearchCache.Entry? {
        cache.stale(key, now: now())
    }

    /// Callers waiting on flights now, and joins ever (tests).
    var flightWaiters: (waiting: Int, joined: Int) { (coalescer.waiting, coalescer.joined) }

    /// Cache occupancy (tests, diagnostics).
    var cacheOccupancy: (answers: Int, answerBytes: Int, offers: Int, offerBytes: Int) { cache.occupancy }

    /// The answer to `search` from `entry`: its offers at or under the
    /// search's price limit.
    ///
    /// - Throws: `invalid-field` `max_price` when offers are priced in
    ///   another currency than the limit (the simulated market prices a trip
    ///   in its origin's currency): a limit that cannot be compared is
    ///   refused, not silently ignored.
    nonisolated static func response(_ entry: SearchCache.Entry, _ search: ValidatedSearch, fromCache: Bool) throws(SearchError) -> SearchFlightsResponse {
        var response = SearchFlightsResponse()
        response.offers = entry.offers.map(\.offer)
        if let limit = search.maxPrice {
            let others = Set(response.offers.lazy.map(\.price.currency).filter { $0 != limit.currency })
            guard others.isEmpty else {
                let found = others.sorted().joined(separator: " and ")
                let remedy = others.count == 1 ? "give the limit in \(found)" : "search without a limit"
                throw .invalidField("max_price", "is in \(limit.currency), and this search's fares are in \(found): \(remedy)")
            }
            response.offers.removeAll { $0.price.minorUnits > limit.minorUnits }
        }
        response.observedAtUnixMs = Int64(entry.observedAt.timeIntervalSince1970 * 1000)
        response.fromCache = fromCache
        response.providers = entry.providers
        return response
    }
}
