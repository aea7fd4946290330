import FareLensBus
import FareLensMessages
import Foundation

/// The search's events. Each is queued on the engine's ``DeferredPublisher``
/// (never waits) and published by ``SearchEngine/run()`` after the reply.
extension SearchEngine {
    /// Queues the `SearchCompleted` report of one search.
    nonisolated func finish(_ report: SearchCompleted, started: ContinuousClock.Instant, context: RequestContext?) {
        guard let events else { return }
        var report = report
        let elapsed = ContinuousClock.now - started
        report.latencyMicros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        report.atUnixMs = Int64(now().timeIntervalSince1970 * 1000)
        events.enqueue(report, parent: context)
    }

    /// Queues a `QuotaWarning` for a threshold crossed.
    func warn(_ crossing: QuotaLedger.Crossing, parent: RequestContext?) {
        var warning = QuotaWarning()
        warning.provider = crossing.provider
        warning.used = crossing.used
        warning.limit = crossing.limit
        warning.thresholdPercent = Int32(crossing.percent)
        warning.period = crossing.period
        warning.atUnixMs = Int64(now().timeIntervalSince1970 * 1000)
        logger.warning("provider quota threshold crossed", metadata: ["provider": "\(crossing.provider)", "percent": "\(crossing.percent)", "used": "\(crossing.used)", "limit": "\(crossing.limit)"])
        events?.enqueue(warning, parent: parent)
    }

    /// Queues every kept offer as a `FareObserved` (durable topic).
    nonisolated func observe(_ entry: SearchCache.Entry, _ search: ValidatedSearch, parent: RequestContext?) {
        guard let events else { return }
        for merged in entry.offers {
            let offer = merged.offer
            guard let first = offer.outbound.segments.first, let last = offer.outbound.segments.last else { continue }
            var fare = FareObserved()
            fare.origin = first.fromAirport
            fare.destination = last.toAirport
            // Each end's country, city and metro, so that consumers need not ask the directory.
            if let from = directory.airport(first.fromAirport) {
                fare.originCountry = from.country
                fare.originCity = from.city
                fare.originMetro = from.metro
            }
            if let to = directory.airport(last.toAirport) {
                fare.destinationCountry = to.country
                fare.destinationCity = to.city
                fare.destinationMetro = to.metro
            }
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
            events.enqueue(fare, parent: parent)
        }
    }
}
