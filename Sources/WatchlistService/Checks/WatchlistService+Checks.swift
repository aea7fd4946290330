import FareLensBus
import FareLensMessages
import Foundation
import GRDB
import Logging

extension WatchlistService {
    /// What one recorded check did.
    struct CheckOutcome: Sendable {
        var watchlist: WatchlistRecord
        var thresholdCrossed: Bool
    }

    /// A check's search answer, not yet recorded: the watchlist as it was
    /// when search was asked, and the lowest fresh offer.
    struct PricedCheck: Sendable {
        var watchlist: WatchlistRecord
        var lowest: FlightOffer
        var checkID: String
        /// The lowest price in the threshold's currency when the two differ, with the rate; nil otherwise.
        var compared: ConvertMoneyResponse? = nil
        /// A range's check: the trips scanned, how many the range holds, and where the next scan starts.
        var scanned: [ScannedDatePair] = []
        var rangePairs = 0
        var nextCursor = 0
    }

    /// Checks one active watchlist now (on demand); records and publishes
    /// what a scheduled check would. Search's own errors (e.g.
    /// `no-fares-available`) reach the caller with their codes.
    func checkNow(_ request: CheckWatchlistNowRequest, context: RequestContext? = nil) async throws(WatchlistError) -> CheckWatchlistNowResponse {
        let record = try owned(request.watchlistID, by: request.userID)
        guard record.active else { throw .watchlistInactive(record.watchlistID) }
        let stored = try read { db in try OwnerRecord.fetchOne(db, key: request.userID) }
        let owner: OwnerRecord
        if let stored { owner = stored } else { owner = try await currentOwner(request.userID) }
        let priced = try await price(record, owner: owner, parent: context)
        let now = clock.now()
        let outcome = try write { db throws(WatchlistError) in try self.record(priced, at: now, parent: context, in: db) }
        guard let outcome else { throw .notFound(record.watchlistID) }
        var response = CheckWatchlistNowResponse()
        response.watchlist = outcome.watchlist.message
        response.thresholdCrossed = outcome.thresholdCrossed
        return response
    }

    /// Runs the checks of every user whose next check is due at the clock's
    /// now, then plans each one's next check strictly after now. However
    /// many slots passed while the service was down, a user is checked once.
    /// Cancelled (the service stopping), it starts no further user's checks
    /// and records nothing for those under way: they stay due, and the next
    /// start checks them.
    ///
    /// - Returns: how many watchlists were checked successfully.
    @discardableResult
    func runDueChecks() async -> Int {
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        let due: [OwnerRecord]
        do {
            due = try read { db in try OwnerRecord.filter(Column("nextCheckAtUnixMs") <= nowMs).order(Column("nextCheckAtUnixMs")).fetchAll(db) }
        } catch {
            logger.error("cannot read due checks; retrying on the next tick", metadata: ["error": "\(error)"])
            return 0
        }
        let mine = due.filter { !ownersBeingChecked.contains($0.userID) }
        ownersBeingChecked.formUnion(mine.map(\.userID))
        defer { ownersBeingChecked.subtract(mine.map(\.userID)) }
        guard !mine.isEmpty else { return 0 }
        checking.value = true
        defer { checking.value = false }
        var checked = 0
        var next = mine.makeIterator()
        await withTaskGroup(of: Int.self) { group in
            for _ in 0 ..< checkConcurrency {
                guard !Task.isCancelled, let owner = next.next() else { break }
                group.addTask { await self.checkAll(of: owner, now: now) }
            }
            for await count in group {
                checked += count
                if !Task.isCancelled, let owner = next.next() { group.addTask { await self.checkAll(of: owner, now: now) } }
            }
        }
        logger.info(
            Task.isCancelled ? "scheduled checks stopped: the service is stopping; the rest run at the next start" : "scheduled checks done",
            metadata: ["users": "\(mine.count)", "watchlists": "\(checked)"])
        return checked
    }

    /// Asks search for the prices of each of the user's active watchlists,
    /// one after another, then records them all, writes their events into
    /// the event outbox and plans the next check (unless a time zone or tier
    /// change planned it meanwhile) in one transaction. So the run's events
    /// are published together, after it, and the alerts service decides
    /// them in one batch, where they compete for the user's daily cap
    /// (docs/alerts.md, "Which candidates compete"); and a crash part-way
    /// leaves the user due, with nothing of the run recorded or published.
    private func checkAll(of owner: OwnerRecord, now: Date) async -> Int {
        let watchlists = (try? read { db in
            try WatchlistRecord.filter(Column("userID") == owner.userID && Column("active") == true).order(Column("createdAtUnixMs")).fetchAll(db)
        }) ?? []
        var priced: [PricedCheck] = []
        for watchlist in watchlists {
            do {
                priced.append(try await price(watchlist, owner: owner, parent: nil))
            } catch {
                if Task.isCancelled { break }
                logger.notice("watchlist check failed; nothing published", metadata: ["watchlist": "\(watchlist.watchlistID)", "error": "\(error)"])
            }
        }
        // Stopping: the run is left unrecorded, so the user stays due (as after a crash part-way), rather than
        // planned past this slot with the checks the stop cut short.
        guard !Task.isCancelled else { return 0 }
        let next = Self.unixMs(owner.schedule.next(after: now, in: owner.zone))
        let checkedAt = clock.now()
        let checks = priced
        do {
            return try write { db throws(WatchlistError) -> Int in
                var recorded = 0
                for check in checks where try self.record(check, at: checkedAt, parent: nil, in: db) != nil { recorded += 1 }
                try Self.catching {
                    try db.execute(
                        sql: "UPDATE owner SET nextCheckAtUnixMs = ? WHERE userID = ? AND nextCheckAtUnixMs = ?",
                        arguments: [next, owner.userID, owner.nextCheckAtUnixMs])
                }
                return recorded
            }
        } catch {
            logger.error("cannot record the user's checks; they run again on the next tick", metadata: ["user": "\(owner.userID)", "error": "\(error)"])
            return 0
        }
    }

    /// Asks search for the watchlist's trip. A failed search, stale
    /// (cached) prices or no fares throw: such a check records and publishes
    /// nothing.
    func price(_ record: WatchlistRecord, owner: OwnerRecord, parent: RequestContext?) async throws(WatchlistError) -> PricedCheck {
        if record.hasRange { return try await priceRange(record, owner: owner, parent: parent) }
        guard let search = PriceCheck.searchRequest(for: record, pro: owner.isPro, today: today(for: owner)) else {
            throw .invalidField("dates.fixed.departure_date", "has passed; there is nothing left to check")
        }
        let response: SearchFlightsResponse
        do {
            response = try await bus.request(search, parent: parent)
        } catch {
            if error.kind == .remote, let code = error.remoteCode { throw .passedThrough(code: code, message: error.message) }
            throw .searchUnavailable(cause: error)
        }
        guard !response.stale else { throw .searchUnavailable(response.staleReason.isEmpty ? "only cached prices" : response.staleReason) }
        guard let lowest = response.offers.min(by: { $0.price.minorUnits < $1.price.minorUnits }) else {
            throw .passedThrough(code: "no-fares-available", message: "search found no fares for \(record.origin)-\(record.destination)")
        }
        return await priced(record, lowest: lowest, parent: parent)
    }

    /// The check of `record` whose lowest offer is `lowest`, with that price
    /// in the threshold's currency when the two differ.
    func priced(_ record: WatchlistRecord, lowest: FlightOffer, parent: RequestContext?) async -> PricedCheck {
        var priced = PricedCheck(watchlist: record, lowest: lowest, checkID: Self.newID("c-"))
        if let threshold = record.threshold, threshold.currency != lowest.price.currency {
            priced.compared = await compared(lowest.price, in: threshold.currency, watchlist: record.watchlistID, parent: parent)
        }
        return priced
    }

    /// `price` in `currency` at the day's rate (search's ``ConvertMoneyRequest``); nil when no rate
    /// can be had now — the check is recorded and its threshold not compared, as before conversion.
    private func compared(_ price: Money, in currency: String, watchlist: String, parent: RequestContext?) async -> ConvertMoneyResponse? {
        var convert = ConvertMoneyRequest()
        convert.amount = price
        convert.to = currency
        do {
            return try await bus.request(convert, parent: parent)
        } catch {
            logger.warning("threshold not compared: the price could not be converted", metadata: [
                "watchlist": "\(watchlist)", "price": "\(price.minorUnits) \(price.currency)", "to": "\(currency)", "error": "\(error)",
            ])
            return nil
        }
    }

    /// Records a priced check inside the write transaction `db`: the lowest
    /// price, its change and the threshold's state; and writes its
    /// `PriceChanged` (and `ThresholdCrossed` on a crossing) into the event
    /// outbox, so they are published if and only if the transaction commits.
    ///
    /// - Returns: nil, recording nothing, when the watchlist was deleted,
    ///   deactivated or given another trip while search answered.
    nonisolated func record(_ priced: PricedCheck, at now: Date, parent: RequestContext?, in db: Database) throws(WatchlistError) -> CheckOutcome? {
        let lowest = priced.lowest
        guard var current = try Self.catching({ try WatchlistRecord.fetchOne(db, key: priced.watchlist.watchlistID) }), current.active,
              current.storedDates == priced.watchlist.storedDates, current.origin == priced.watchlist.origin,
              current.destination == priced.watchlist.destination, current.cabin == priced.watchlist.cabin
        else { return nil }
        let previous = current.lastPriceMinorUnits.map { Money(minorUnits: $0, currency: current.lastPriceCurrency) }
        let change = PriceCheck.change(from: previous, to: lowest.price)
        let threshold = PriceCheck.threshold(current.threshold, price: priced.compared?.converted ?? lowest.price, wasBelow: current.belowThreshold)
        current.lastPriceMinorUnits = lowest.price.minorUnits
        current.lastPriceCurrency = lowest.price.currency
        current.lastChangeMinorUnits = change?.amount
        current.lastChangeBasisPoints = change?.basisPoints
        current.lastCheckedAtUnixMs = Self.unixMs(now)
        current.lastDepartureDate = Self.dateNumber(lowest.outbound)
        current.lastReturnDate = lowest.hasInbound ? Self.dateNumber(lowest.inbound) : 0
        current.lastOfferID = lowest.offerID
        current.lastProvider = lowest.provider
        current.lastSimulated = lowest.simulated
        current.lastStale = false
        current.belowThreshold = threshold.below
        current.lastComparedMinorUnits = priced.compared?.converted.minorUnits
        current.lastComparedCurrency = priced.compared?.converted.currency ?? ""
        current.lastExchangeRate = priced.compared?.rate ?? ""
        current.lastExchangeRateDate = priced.compared?.date ?? ""
        current.lastScannedPairs = ScannedPairsText.text(priced.scanned)
        current.lastRangePairs = priced.rangePairs
        current.pairCursor = priced.nextCursor
        let checked = current
        try Self.catching { try checked.update(db) }
        guard let check = checked.lastCheck else { return CheckOutcome(watchlist: checked, thresholdCrossed: threshold.crossed) }
        let changed = Self.priceChanged(checked, check: check, checkID: priced.checkID, previous: previous)
        try Self.catching { try events.append(changed, parent: parent, in: db) }
        if threshold.crossed, let crossing = Self.thresholdCrossed(changed, threshold: checked.threshold) {
            try Self.catching { try events.append(crossing, parent: parent, in: db) }
            // Logged once recorded: the caller's transaction may still roll back (the run's other checks).
            let (logger, metadata): (Logger, Logger.Metadata) = (logger, ["watchlist": "\(crossing.watchlistID)", "price": "\(lowest.price.minorUnits) \(lowest.price.currency)"])
            db.afterNextTransaction(onCommit: { _ in logger.info("threshold crossed", metadata: metadata) })
        }
        return CheckOutcome(watchlist: checked, thresholdCrossed: threshold.crossed)
    }

    /// The check's `PriceChanged`.
    private static func priceChanged(_ record: WatchlistRecord, check: WatchlistCheck, checkID: String, previous: Money?) -> PriceChanged {
        var changed = PriceChanged()
        changed.checkID = checkID
        changed.watchlistID = record.watchlistID
        changed.userID = record.userID
        changed.origin = record.origin
        changed.destination = record.destination
        changed.cabin = Cabin(rawValue: record.cabin) ?? .economy
        changed.alertMode = AlertMode(rawValue: record.alertMode) ?? .priceDrop
        changed.muteUntilUnixMs = record.muteUntilUnixMs
        if let previous { changed.previousPrice = previous }
        changed.check = check
        (changed.originCity, changed.originMetro) = (record.originCity, record.originMetro)
        (changed.destinationCity, changed.destinationMetro) = (record.destinationCity, record.destinationMetro)
        return changed
    }

    /// The crossing's `ThresholdCrossed`, from the same check's `PriceChanged`; nil without a threshold.
    private static func thresholdCrossed(_ changed: PriceChanged, threshold: Money?) -> ThresholdCrossed? {
        guard let threshold else { return nil }
        var crossing = ThresholdCrossed()
        crossing.checkID = changed.checkID
        crossing.watchlistID = changed.watchlistID
        crossing.userID = changed.userID
        crossing.origin = changed.origin
        crossing.destination = changed.destination
        crossing.cabin = changed.cabin
        crossing.alertMode = changed.alertMode
        crossing.muteUntilUnixMs = changed.muteUntilUnixMs
        crossing.priceThreshold = threshold
        crossing.check = changed.check
        (crossing.originCity, crossing.originMetro) = (changed.originCity, changed.originMetro)
        (crossing.destinationCity, crossing.destinationMetro) = (changed.destinationCity, changed.destinationMetro)
        return crossing
    }

    /// The local departure date of a journey's first segment as `yyyymmdd`; 0 if unreadable.
    static func dateNumber(_ journey: FlightJourney) -> Int {
        guard let first = journey.segments.first, let date = CalendarDate(iso: first.departureLocal.prefix(10)) else { return 0 }
        return LocalDateNumber.number(date.message)
    }
}
