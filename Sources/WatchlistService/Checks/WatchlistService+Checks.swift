import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension WatchlistService {
    /// What one successful check did.
    struct CheckOutcome: Sendable {
        var watchlist: WatchlistRecord
        var thresholdCrossed: Bool
        /// What the check publishes (``publish(_:parent:)``).
        var events: CheckEvents?
    }

    /// The events of one check: its `PriceChanged`, and its
    /// `ThresholdCrossed` on a crossing.
    struct CheckEvents: Sendable {
        var changed: PriceChanged
        var crossing: ThresholdCrossed?
    }

    /// Checks one active watchlist now (on demand); publishes what a
    /// scheduled check would. Search's own errors (e.g. `no-fares-available`)
    /// reach the caller with their codes.
    func checkNow(_ request: CheckWatchlistNowRequest, context: RequestContext? = nil) async throws(WatchlistError) -> CheckWatchlistNowResponse {
        let record = try owned(request.watchlistID, by: request.userID)
        guard record.active else { throw .watchlistInactive(record.watchlistID) }
        let stored = try read { db in try OwnerRecord.fetchOne(db, key: request.userID) }
        let owner: OwnerRecord
        if let stored { owner = stored } else { owner = try await currentOwner(request.userID) }
        let outcome = try await check(record, owner: owner, parent: context)
        if let events = outcome.events { publish(events, parent: context) }
        var response = CheckWatchlistNowResponse()
        response.watchlist = outcome.watchlist.message
        response.thresholdCrossed = outcome.thresholdCrossed
        return response
    }

    /// Runs the checks of every user whose next check is due at the clock's
    /// now, then plans each one's next check strictly after now. However
    /// many slots passed while the service was down, a user is checked once.
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
        var checked = 0
        var next = mine.makeIterator()
        await withTaskGroup(of: Int.self) { group in
            for _ in 0 ..< checkConcurrency {
                guard let owner = next.next() else { break }
                group.addTask { await self.checkAll(of: owner, now: now) }
            }
            for await count in group {
                checked += count
                if let owner = next.next() { group.addTask { await self.checkAll(of: owner, now: now) } }
            }
        }
        logger.info("scheduled checks done", metadata: ["users": "\(mine.count)", "watchlists": "\(checked)"])
        return checked
    }

    /// Checks the user's active watchlists one after another, then
    /// publishes their events together, so that the alerts service decides
    /// them in one batch and they compete for the user's daily cap
    /// (docs/alerts.md, "Which candidates compete"); then plans the next
    /// check (unless a time zone or tier change planned it meanwhile).
    private func checkAll(of owner: OwnerRecord, now: Date) async -> Int {
        let watchlists = (try? read { db in
            try WatchlistRecord.filter(Column("userID") == owner.userID && Column("active") == true).order(Column("createdAtUnixMs")).fetchAll(db)
        }) ?? []
        var checked = 0
        var run: [CheckEvents] = []
        for watchlist in watchlists {
            do {
                let outcome = try await check(watchlist, owner: owner, parent: nil)
                if let events = outcome.events { run.append(events) }
                checked += 1
            } catch {
                logger.notice("watchlist check failed; nothing published", metadata: ["watchlist": "\(watchlist.watchlistID)", "error": "\(error)"])
            }
        }
        for events in run { publish(events, parent: nil) }
        planNext(owner, after: now)
        return checked
    }

    /// Plans the owner's next check strictly after `now`, unless a time zone
    /// or tier change planned it meanwhile. Synchronous on purpose: nothing
    /// can run on this actor between the last check and this plan.
    private func planNext(_ owner: OwnerRecord, after now: Date) {
        let next = Self.unixMs(owner.schedule.next(after: now, in: owner.zone))
        do {
            try database.writer.write { db in
                try db.execute(
                    sql: "UPDATE owner SET nextCheckAtUnixMs = ? WHERE userID = ? AND nextCheckAtUnixMs = ?",
                    arguments: [next, owner.userID, owner.nextCheckAtUnixMs])
            }
        } catch {
            logger.error("cannot plan the next check; it runs on the next tick", metadata: ["user": "\(owner.userID)", "error": "\(error)"])
        }
    }

    /// One check: asks search over the bus, records the lowest price, its
    /// change and the threshold's state, and returns the `PriceChanged` (and
    /// `ThresholdCrossed` on a crossing) to publish. A failed search, stale (cached)
    /// prices or no fares record and publish nothing. If the watchlist was
    /// deleted, deactivated or given another trip while search answered,
    /// the answer is dropped.
    func check(_ record: WatchlistRecord, owner: OwnerRecord, parent: RequestContext?) async throws(WatchlistError) -> CheckOutcome {
        guard let search = PriceCheck.searchRequest(for: record, pro: owner.isPro, today: today(for: owner)) else {
            throw .invalidField("dates.fixed.departure_date", "has passed; there is nothing left to check")
        }
        let response: SearchFlightsResponse
        do {
            response = try await bus.request(search, parent: parent)
        } catch {
            if error.kind == .remote, let code = error.remoteCode { throw .passedThrough(code: code, message: error.message) }
            throw .searchUnavailable("\(error)")
        }
        guard !response.stale else { throw .searchUnavailable(response.staleReason.isEmpty ? "only cached prices" : response.staleReason) }
        guard let lowest = response.offers.min(by: { $0.price.minorUnits < $1.price.minorUnits }) else {
            throw .passedThrough(code: "no-fares-available", message: "search found no fares for \(record.origin)-\(record.destination)")
        }
        let now = clock.now()
        let checkID = Self.newID("c-")
        let result = try write { db throws(WatchlistError) -> (WatchlistRecord, Money?, Bool)? in
            guard var current = try Self.catching({ try WatchlistRecord.fetchOne(db, key: record.watchlistID) }), current.active,
                  current.storedDates == record.storedDates, current.origin == record.origin, current.destination == record.destination,
                  current.cabin == record.cabin
            else { return nil }
            let previous = current.lastPriceMinorUnits.map { Money(minorUnits: $0, currency: current.lastPriceCurrency) }
            let change = PriceCheck.change(from: previous, to: lowest.price)
            let threshold = PriceCheck.threshold(current.threshold, price: lowest.price, wasBelow: current.belowThreshold)
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
            current.lastStale = response.stale
            current.belowThreshold = threshold.below
            try Self.catching { try current.update(db) }
            return (current, previous, threshold.crossed)
        }
        guard let (checked, previous, crossed) = result else {
            throw .notFound(record.watchlistID)
        }
        let events = checkEvents(checked, checkID: checkID, previous: previous, crossed: crossed)
        return CheckOutcome(watchlist: checked, thresholdCrossed: crossed, events: events)
    }

    /// Queues one check's events for publishing, the price change first.
    func publish(_ events: CheckEvents, parent: RequestContext?) {
        _ = self.events.enqueue(events.changed, parent: parent)
        guard let crossing = events.crossing else { return }
        _ = self.events.enqueue(crossing, parent: parent)
        logger.info("threshold crossed", metadata: ["watchlist": "\(crossing.watchlistID)", "price": "\(crossing.check.lowestPrice.minorUnits) \(crossing.check.lowestPrice.currency)"])
    }

    private func checkEvents(_ record: WatchlistRecord, checkID: String, previous: Money?, crossed: Bool) -> CheckEvents? {
        guard let check = record.lastCheck else { return nil }
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
        guard crossed, let threshold = record.threshold else { return CheckEvents(changed: changed) }
        var crossing = ThresholdCrossed()
        crossing.checkID = checkID
        crossing.watchlistID = record.watchlistID
        crossing.userID = record.userID
        crossing.origin = record.origin
        crossing.destination = record.destination
        crossing.cabin = changed.cabin
        crossing.alertMode = changed.alertMode
        crossing.muteUntilUnixMs = record.muteUntilUnixMs
        crossing.priceThreshold = threshold
        crossing.check = check
        return CheckEvents(changed: changed, crossing: crossing)
    }

    /// The local departure date of a journey's first segment as `yyyymmdd`; 0 if unreadable.
    static func dateNumber(_ journey: FlightJourney) -> Int {
        guard let first = journey.segments.first, let date = CalendarDate(iso: first.departureLocal.prefix(10)) else { return 0 }
        return LocalDateNumber.number(date.message)
    }
}
