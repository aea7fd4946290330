public import FareLensBus
public import FareLensMessages
public import Foundation
import Synchronization
public import Logging

/// Answers flight searches (SPEC §1): validation, cache, coalescing, the
/// simulated market and the live provider chain under quota, merge and
/// de-duplication, the stale fallback, and the events every search emits.
public final class SearchEngine: Sendable {
    let validator: SearchValidator
    let directory: AirportDirectory
    /// Always asked when present (not live: no quota).
    let simulated: (any FareProvider)?
    /// Live providers in fallback order (Amadeus, then Travelpayouts): the
    /// first that answers is used.
    let live: [any FareProvider]
    let cache: SearchCache
    let quota: QuotaLedger
    let coalescer = Coalescer<SearchCache.Entry>()
    /// The last failure per live provider ("" after a success), for quota status.
    let lastErrors = Mutex<[String: String]>([:])
    let bus: MessageBus?
    let now: @Sendable () -> Date
    let logger: Logger

    /// Creates an engine.
    public init(
        directory: AirportDirectory, simulated: (any FareProvider)?, live: [any FareProvider], cache: SearchCache,
        quota: QuotaLedger, bus: MessageBus?, logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.validator = SearchValidator(directory: directory)
        self.directory = directory
        self.simulated = simulated
        self.live = live
        self.cache = cache
        self.quota = quota
        self.bus = bus
        self.logger = logger
        self.now = now
    }

    /// Answers `SearchFlightsRequest`.
    public func search(_ request: SearchFlightsRequest, context: RequestContext? = nil) async throws(SearchError) -> SearchFlightsResponse {
        let started = ContinuousClock.now
        var report = SearchCompleted()
        report.userID = request.userID
        report.purpose = request.purpose
        report.origin = request.origin
        report.destination = request.destination
        do throws(SearchError) {
            let search = try validator.validate(request, now: now())
            let key = "\(search.query) flex\(search.flexibleDays)"
            var response: SearchFlightsResponse
            if let entry = cache.fresh(key, for: search.purpose, now: now()) {
                response = Self.response(entry, search, fromCache: true)
                report.cacheHit = true
            } else {
                let (entry, coalesced) = try await coalescer.run(key) { () async throws(SearchError) -> SearchCache.Entry in
                    try await self.fetch(search, key: key, parent: context)
                }
                response = Self.response(entry, search, fromCache: false)
                report.coalesced = coalesced
                report.providerCalls = coalesced ? 0 : Int32(entry.providerCalls)
                if entry.isStale { response.stale = true; response.staleReason = Self.staleReason }
            }
            report.stale = response.stale
            report.offerCount = Int32(response.offers.count)
            await finish(report, started: started, context: context)
            return response
        } catch {
            report.errorCode = error.code
            await finish(report, started: started, context: context)
            throw error
        }
    }

    static let staleReason = "Live prices unavailable, showing cached results"

    private func finish(_ report: SearchCompleted, started: ContinuousClock.Instant, context: RequestContext?) async {
        var report = report
        let elapsed = ContinuousClock.now - started
        report.latencyMicros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        report.atUnixMs = Int64(now().timeIntervalSince1970 * 1000)
        try? await bus?.publish(report, parent: context)
    }

    static func response(_ entry: SearchCache.Entry, _ search: ValidatedSearch, fromCache: Bool) -> SearchFlightsResponse {
        var response = SearchFlightsResponse()
        response.offers = entry.offers.map(\.offer).filter { offer in
            guard let max = search.maxPrice, max.currency.uppercased() == offer.price.currency else { return true }
            return offer.price.minorUnits <= max.minorUnits
        }
        response.observedAtUnixMs = Int64(entry.observedAt.timeIntervalSince1970 * 1000)
        response.fromCache = fromCache
        response.providers = entry.providers
        return response
    }
}
