import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB

extension ScoringService {
    /// A current deal stays in the feed this long after it was observed (or until departure).
    static let dealLifetimeMs: Int64 = 7 * 86_400_000

    /// Applies one observed fare (a batch of one); see ``ingest(_:)-(Array)``.
    @discardableResult
    func ingest(_ delivery: Delivery<FareObserved>) -> Deal? {
        ingest([delivery]).first
    }

    /// Applies observed fares exactly once each (the inbox), all in one
    /// transaction: each fare is scored against the history before it,
    /// folded into the history, and kept as a deal when it scores 60 or more;
    /// a deal at 90 or more writes its `ExceptionalDeal` into the event
    /// outbox in the same transaction, and after the commit each deal's
    /// `DealScored` is published. A redelivered fare is skipped; an unreadable one is
    /// logged and skipped. If the transaction fails nothing is applied (and
    /// nothing acknowledged: the caller asks for the next batch only after).
    ///
    /// - Returns: the deals made.
    @discardableResult
    func ingest(_ deliveries: [Delivery<FareObserved>]) -> [Deal] {
        let now = clock.now()
        let reference = reference
        var deals: [Deal] = []
        do {
            try database.writer.write { db in
                // The batch's ids in one inbox row (per publisher), not one row per fare.
                let keys = deliveries.map { InboxKey($0.metadata.id) }
                let fresh = try ServiceDatabase.recordOnce(keys, consumer: Self.fareConsumer, at: now, in: db)
                for (delivery, isFresh) in zip(deliveries, fresh) where isFresh {
                    guard let deal = try apply(delivery, now: now, reference: reference, in: db) else { continue }
                    deals.append(deal)
                    if deal.score.score >= 90 {
                        var exceptional = ExceptionalDeal()
                        exceptional.deal = deal
                        try exceptionalDeals.append(exceptional, in: db)
                    }
                }
            }
        } catch {
            // Rolled back: the cache may hold folds that were not committed.
            historyCache.clear()
            logger.error("observed fares not applied; they will be redelivered", metadata: ["fares": "\(deliveries.count)", "error": "\(error)"])
            return []
        }
        for deal in deals {
            current[deal.dealID] = feedEntry(deal)
            var scored = DealScored()
            scored.deal = deal
            _ = events.enqueue(scored)
        }
        return deals
    }

    /// One fare, not applied before, inside the batch's transaction; nil when it is not a deal or unreadable.
    private func apply(_ delivery: Delivery<FareObserved>, now: Date, reference: ReferenceData, in db: Database) throws -> Deal? {
        let fare = delivery.event
        guard let departure = CalendarDate(fare.departureDate), fare.price.minorUnits > 0, fare.price.currency.count == 3,
              fare.origin.count == 3, fare.destination.count == 3
        else {
            logger.notice("observed fare ignored: unreadable", metadata: ["route": "\(fare.origin)-\(fare.destination)"])
            return nil
        }
        let perPerson = fare.price.minorUnits / Int64(max(1, fare.travellers))
        let observedDay = Self.day(ofUnixMs: fare.observedAtUnixMs > 0 ? fare.observedAtUnixMs : Self.unixMs(now))
        let cabin = (fare.cabin == .unspecified ? Cabin.economy : fare.cabin).rawValue
        let month = departure.year * 100 + departure.month
        let routeKey = HistoryCache.Key(origin: fare.origin, destination: fare.destination, cabin: cabin, departureMonth: month, currency: fare.price.currency)
        if !historyCache.contains(routeKey) {
            historyCache.load(routeKey, days: try DailyMinimumRecord.days(
                origin: fare.origin, destination: fare.destination, cabin: cabin, departureMonth: month, currency: fare.price.currency,
                since: 0, in: db))
        }
        // Against the days before the fare's own (docs/scoring.md, "History"): the order of a day's fares changes no score.
        let statistics = historyCache.statistics(routeKey, today: observedDay - 1)
        // Kept for the airport pair and, when either side belongs to a metro, for the metro pair too (PAR-MIL answers).
        let metroPair = (reference.metroOf[fare.origin] ?? fare.origin, reference.metroOf[fare.destination] ?? fare.destination)
        let pairs = metroPair == (fare.origin, fare.destination) ? [metroPair] : [(fare.origin, fare.destination), metroPair]
        for (origin, destination) in pairs {
            try DailyMinimumRecord.fold(
                origin: origin, destination: destination, cabin: cabin, departureMonth: month, day: observedDay,
                currency: fare.price.currency, price: perPerson, simulated: fare.simulated, in: db)
        }
        historyCache.fold(routeKey, day: observedDay, price: perPerson)
        let input = ScoreInput(
            price: perPerson, currency: fare.price.currency, statistics: statistics,
            routeObservations: historyCache.observations(routeKey) { reference.observations(fare.origin, fare.destination) },
            daysToDeparture: departure.daysSinceEpoch - observedDay, carrier: reference.carriers[fare.carrier])
        // The arithmetic first: the reasons' texts and messages only for the fares kept as deals.
        guard let statistics, let points = DealScoreFormula.points(input), points.total >= 60 else { return nil }
        let score = DealScoreFormula.score(input, statistics: statistics, points: points)
        let deal = Self.deal(fare, perPerson: perPerson, score: score, departure: departure)
        try DealRecord(deal).upsert(in: db)
        return deal
    }

    /// The deal a fare makes: per-person price, its score, and when it leaves the feed.
    static func deal(_ fare: FareObserved, perPerson: Int64, score: DealScore, departure: CalendarDate) -> Deal {
        var deal = Deal()
        deal.origin = fare.origin
        deal.destination = fare.destination
        deal.originCountry = fare.originCountry
        deal.destinationCountry = fare.destinationCountry
        deal.originCity = fare.originCity
        deal.destinationCity = fare.destinationCity
        deal.originMetro = fare.originMetro
        deal.destinationMetro = fare.destinationMetro
        deal.departureDate = fare.departureDate
        if fare.hasReturnDate { deal.returnDate = fare.returnDate }
        deal.cabin = fare.cabin == .unspecified ? .economy : fare.cabin
        deal.carrier = fare.carrier
        deal.stops = fare.stops
        deal.durationMinutes = fare.durationMinutes
        deal.price.currency = fare.price.currency
        deal.price.minorUnits = perPerson
        deal.provider = fare.provider
        deal.simulated = fare.simulated
        deal.offerID = fare.offerID
        deal.observedAtUnixMs = fare.observedAtUnixMs
        let departureMs = Int64(departure.daysSinceEpoch) * 86_400_000
        deal.expiresAtUnixMs = min(fare.observedAtUnixMs + dealLifetimeMs, departureMs)
        deal.score = score
        let returning = fare.hasReturnDate ? CalendarDate(fare.returnDate)?.description ?? "" : ""
        deal.dealID = "d-" + stableHash("\(fare.origin)|\(fare.destination)|\(departure)|\(returning)|\(deal.cabin.rawValue)|\(fare.provider)|\(perPerson)\(fare.price.currency)")
        return deal
    }

    /// FNV-1a 64 of `text` in hex: the same id for the same deal on every node.
    static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

