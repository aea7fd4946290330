import FareLensBus
import FareLensMessages
import FareLensStore
import Foundation
import GRDB

extension ScoringService {
    /// A current deal stays in the feed this long after it was observed (or until departure).
    static let dealLifetimeMs: Int64 = 7 * 86_400_000

    /// Applies one observed fare exactly once (the inbox): scores it against
    /// the history before it, folds it into the history, and keeps it as a
    /// deal when it scores 60 or more; then publishes `DealScored` (and
    /// `ExceptionalDeal` at 90 or more).
    ///
    /// - Returns: the deal, or nil (not a deal, a redelivery, or a fare that cannot be read).
    @discardableResult
    func ingest(_ delivery: Delivery<FareObserved>) -> Deal? {
        let fare = delivery.event
        guard let departure = CalendarDate(fare.departureDate), fare.price.minorUnits > 0, fare.price.currency.count == 3,
              fare.origin.count == 3, fare.destination.count == 3
        else {
            logger.notice("observed fare ignored: unreadable", metadata: ["route": "\(fare.origin)-\(fare.destination)"])
            return nil
        }
        let key = InboxKey(publisher: delivery.metadata.id.publisher, sequence: delivery.metadata.id.sequence)
        let perPerson = fare.price.minorUnits / Int64(max(1, fare.travellers))
        let observedDay = Self.day(ofUnixMs: fare.observedAtUnixMs > 0 ? fare.observedAtUnixMs : Self.unixMs(clock.now()))
        let cabin = (fare.cabin == .unspecified ? Cabin.economy : fare.cabin).rawValue
        let month = departure.year * 100 + departure.month
        let reference = reference
        let deal: Deal??
        do {
            deal = try database.applyOnce(key, consumer: Self.fareConsumer, at: clock.now()) { db -> Deal? in
                let history = try DailyMinimumRecord.days(
                    origin: fare.origin, destination: fare.destination, cabin: cabin, departureMonth: month, currency: fare.price.currency,
                    since: observedDay - DailyMinimumRecord.retentionDays, in: db)
                let statistics = RouteStatistics.compute(history, today: observedDay)
                // Kept for the airport pair and, when either side belongs to a metro, for the metro pair too (PAR-MIL answers).
                let metroPair = (reference.metroOf[fare.origin] ?? fare.origin, reference.metroOf[fare.destination] ?? fare.destination)
                let pairs = metroPair == (fare.origin, fare.destination) ? [metroPair] : [(fare.origin, fare.destination), metroPair]
                for (origin, destination) in pairs {
                    try DailyMinimumRecord.fold(
                        origin: origin, destination: destination, cabin: cabin, departureMonth: month, day: observedDay,
                        currency: fare.price.currency, price: perPerson, in: db)
                }
                let score = DealScoreFormula.score(ScoreInput(
                    price: perPerson, currency: fare.price.currency, statistics: statistics,
                    routeObservations: reference.observations(fare.origin, fare.destination),
                    daysToDeparture: departure.daysSinceEpoch - observedDay, carrier: reference.carriers[fare.carrier]))
                guard score.score >= 60 else { return nil }
                let deal = Self.deal(fare, perPerson: perPerson, score: score, departure: departure)
                try DealRecord(deal).save(db)
                return deal
            }
        } catch {
            // Not recorded in the inbox: a redelivery (or a restart) applies it.
            logger.error("observed fare not applied", metadata: ["route": "\(fare.origin)-\(fare.destination)", "error": "\(error)"])
            return nil
        }
        guard let deal, let deal else { return nil }
        current[deal.dealID] = FeedEntry(deal, metroOf: reference.metroOf)
        var scored = DealScored()
        scored.deal = deal
        _ = events.enqueue(scored)
        if deal.score.score >= 90 {
            var exceptional = ExceptionalDeal()
            exceptional.deal = deal
            _ = events.enqueue(exceptional)
        }
        return deal
    }

    /// The deal a fare makes: per-person price, its score, and when it leaves the feed.
    static func deal(_ fare: FareObserved, perPerson: Int64, score: DealScore, departure: CalendarDate) -> Deal {
        var deal = Deal()
        deal.origin = fare.origin
        deal.destination = fare.destination
        deal.originCountry = fare.originCountry
        deal.destinationCountry = fare.destinationCountry
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
