import FareLensBus
import FareLensMessages
import Foundation

extension WatchlistService {
    /// A check of a flexible watchlist with a range (docs/watchlist.md,
    /// "Flexible dates"): the next trips of the range in turn, at most the
    /// tier's `flexible_date_pairs` of them, each one search of its own with
    /// the watchlist's purpose — so search's cache answers first, and its
    /// quota classes put these below a person's searches. One after another,
    /// never all at once: a check must not crowd out the searches people make.
    ///
    /// The cheapest fresh offer among them is the check's price; every trip
    /// asked is reported with its price or why there was none. Throws, like a
    /// single search, when no trip had a fresh price.
    func priceRange(_ record: WatchlistRecord, owner: OwnerRecord, parent: RequestContext?) async throws(WatchlistError) -> PricedCheck {
        let trips = record.datePairs(today: today(for: owner))
        guard !trips.isEmpty else {
            throw .invalidField("dates.flexible.latest_return", "the range has passed; there is nothing left to check")
        }
        let limit = try await datePairLimit(of: owner, parent: parent)
        let asked = DatePairs.scanned(trips, limit: limit, cursor: record.pairCursor)
        var scanned: [ScannedDatePair] = []
        scanned.reserveCapacity(asked.count)
        var lowest: FlightOffer?
        var unavailable: TripFailure?
        for trip in asked {
            guard !Task.isCancelled else { throw .searchUnavailable("the service is stopping") }
            var entry = ScannedDatePair()
            entry.departureDate = trip.departure.message
            if let back = trip.returning { entry.returnDate = back.message }
            switch await cheapest(on: trip, of: record, pro: owner.isPro, parent: parent) {
            case .success(let offer):
                entry.lowestPrice = offer.price
                if lowest.map({ offer.price.minorUnits < $0.price.minorUnits }) ?? true { lowest = offer }
            case .failure(let failure):
                entry.failure = failure.code
                if failure.code == "search-unavailable" { unavailable = failure }
            }
            scanned.append(entry)
        }
        let nextCursor = DatePairs.nextCursor(after: record.pairCursor, count: trips.count, limit: limit)
        guard let lowest else {
            if let unavailable { throw unavailable.underlying.map { .searchUnavailable(cause: $0) } ?? .searchUnavailable(unavailable.message) }
            // Search answered for every trip and none had fares: the next check asks the next trips, not these
            // again (otherwise a range whose first trips have no fares would never be scanned further).
            moveCursor(of: record, to: nextCursor)
            throw .passedThrough(code: "no-fares-available", message: "search found no fresh fares for any of the \(asked.count) trips scanned")
        }
        var priced = await priced(record, lowest: lowest, parent: parent)
        priced.scanned = scanned
        priced.rangePairs = trips.count
        priced.nextCursor = nextCursor
        return priced
    }

    /// Moves the watchlist's scan on to `cursor` after a check that found nothing (and so records nothing),
    /// unless the watchlist changed meanwhile.
    private func moveCursor(of record: WatchlistRecord, to cursor: Int) {
        do {
            try write { db throws(WatchlistError) in
                try Self.catching {
                    try db.execute(
                        sql: "UPDATE watchlist SET pairCursor = ? WHERE watchlistID = ? AND pairCursor = ? AND rangeStart = ? AND rangeEnd = ?",
                        arguments: [cursor, record.watchlistID, record.pairCursor, record.rangeStart, record.rangeEnd])
                }
            }
        } catch {
            logger.warning("the range's scan stays where it was", metadata: ["watchlist": "\(record.watchlistID)", "error": "\(error)"])
        }
    }

    /// Why one trip of a range has no price: a code for the check's report,
    /// what search said, and the bus's error when search could not answer.
    struct TripFailure: Error {
        let code: String
        let message: String
        var underlying: BusError?
    }

    /// The cheapest fresh offer search has for one trip of `record`.
    private func cheapest(on trip: DatePair, of record: WatchlistRecord, pro: Bool, parent: RequestContext?) async -> Result<FlightOffer, TripFailure> {
        var search = PriceCheck.baseRequest(for: record, pro: pro)
        search.departureDate = trip.departure.message
        if let back = trip.returning { search.returnDate = back.message }
        let response: SearchFlightsResponse
        do {
            response = try await bus.request(search, parent: parent)
        } catch {
            if error.kind == .remote, let code = error.remoteCode { return .failure(TripFailure(code: code, message: error.message)) }
            return .failure(TripFailure(code: "search-unavailable", message: "\(error)", underlying: error))
        }
        guard !response.stale else { return .failure(TripFailure(code: "stale", message: response.staleReason)) }
        guard let offer = response.offers.min(by: { $0.price.minorUnits < $1.price.minorUnits }) else {
            return .failure(TripFailure(code: "no-fares-available", message: "no fares"))
        }
        return .success(offer)
    }

    /// The owner's trips per range check; asked of the subscription service
    /// (and kept) when the owner row is from before the limit was kept.
    private func datePairLimit(of owner: OwnerRecord, parent: RequestContext?) async throws(WatchlistError) -> Int {
        if let limit = owner.datePairLimit { return limit }
        let fresh = try await currentOwner(owner.userID)
        try write { db throws(WatchlistError) in
            try Self.catching {
                try db.execute(sql: "UPDATE owner SET datePairLimit = ? WHERE userID = ?", arguments: [fresh.datePairLimit, owner.userID])
            }
        }
        guard let limit = fresh.datePairLimit else { throw .subscriptionUnavailable("the subscription service did not say how many trips a check may scan") }
        return limit
    }
}
