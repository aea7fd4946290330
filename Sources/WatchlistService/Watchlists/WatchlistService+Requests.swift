import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension WatchlistService {
    /// Creates an active watchlist after checking every field; refused with
    /// `watchlist-limit` when the user's tier (asked of the subscription
    /// service now) allows no more active ones. Publishes `WatchlistChanged(CREATED)`.
    func create(_ request: CreateWatchlistRequest, context: RequestContext? = nil) async throws(WatchlistError) -> CreateWatchlistResponse {
        let owner = try await currentOwner(request.userID)
        let from = try await validator.airport(request.origin, field: "origin")
        let to = try await validator.airport(request.destination, field: "destination")
        try WatchlistValidator.route(origin: from, destination: to)
        let (origin, destination) = (from.code, to.code)
        let dates = try WatchlistValidator.dates(request.hasDates ? request.dates : nil, today: today(for: owner))
        let cabin = try WatchlistValidator.cabin(request.cabin)
        let threshold = request.hasPriceThreshold ? try WatchlistValidator.threshold(request.priceThreshold) : nil
        if let threshold { try await validator.thresholdCurrency(threshold, origin: from) }
        let mode = try WatchlistValidator.alertMode(request.alertMode)
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        var made = WatchlistRecord(
            watchlistID: Self.newID("w-"), userID: owner.userID, origin: origin, destination: destination,
            flexible: dates.flexible, minTripDays: dates.minTripDays, maxTripDays: dates.maxTripDays,
            departureDate: dates.departure, returnDate: dates.return, cabin: cabin.rawValue,
            thresholdMinorUnits: threshold?.minorUnits, thresholdCurrency: threshold?.currency ?? "", alertMode: mode.rawValue,
            muteUntilUnixMs: 0, active: true, inactiveReason: 0, createdAtUnixMs: nowMs, updatedAtUnixMs: nowMs,
            rangeStart: dates.rangeStart, rangeEnd: dates.rangeEnd, weekendsOnly: dates.weekendsOnly
        )
        made.setPlaces(origin: from, destination: to)
        let record = made
        try write { db throws(WatchlistError) in
            try Self.catching { try Self.save(owner, in: db) }
            // The trip first: "you already watch it" says more than the limit would.
            try Self.refuseSameTrip(as: record, in: db)
            if let limit = owner.activeLimit {
                let active = try Self.catching { try Self.activeCount(owner.userID, in: db) }
                guard active < limit else { throw .watchlistLimit(limit, tier: Self.tierName(owner.tierValue)) }
            }
            try Self.catching { try record.insert(db) }
            try self.appendChange(.created, record, at: now, parent: context, in: db)
        }
        logger.info("watchlist created", metadata: ["user": "\(owner.userID)", "watchlist": "\(record.watchlistID)", "route": "\(origin)-\(destination)"])
        var response = CreateWatchlistResponse()
        response.watchlist = record.message
        return response
    }

    /// The route after `request`: the stored one (no places: nil), or the
    /// new ends checked as a pair (the unchanged end is looked up too: the
    /// two must not be one city), with what the directory said of each.
    private func updatedRoute(_ request: UpdateWatchlistRequest, _ current: WatchlistRecord) async throws(WatchlistError) -> (String, String, (KnownPlace, KnownPlace)?) {
        guard request.hasOrigin || request.hasDestination else { return (current.origin, current.destination, nil) }
        let from = try await validator.airport(request.hasOrigin ? request.origin : current.origin, field: "origin")
        let to = try await validator.airport(request.hasDestination ? request.destination : current.destination, field: "destination")
        try WatchlistValidator.route(origin: from, destination: to)
        return (from.code, to.code, (from, to))
    }

    /// One of the user's watchlists.
    func get(_ request: GetWatchlistRequest) throws(WatchlistError) -> GetWatchlistResponse {
        var response = GetWatchlistResponse()
        response.watchlist = try owned(request.watchlistID, by: request.userID).message
        return response
    }

    /// Changes the fields that are set. A new route, dates or cabin forget
    /// the last check (it was another trip's price); a new or cleared
    /// threshold re-arms. Activating is refused with `watchlist-limit` when
    /// the tier allows no more. Publishes `WatchlistChanged`.
    func update(_ request: UpdateWatchlistRequest, context: RequestContext? = nil) async throws(WatchlistError) -> UpdateWatchlistResponse {
        let current = try owned(request.watchlistID, by: request.userID)
        let (origin, destination, places) = try await updatedRoute(request, current)
        let activating = request.hasActive && request.active && !current.active
        // Fresh from the subscription service when it matters: the time zone for dates, the limit for activation.
        let owner = request.hasDates || activating ? try await currentOwner(request.userID) : nil
        var newDates: StoredDates?
        if request.hasDates, let owner { newDates = try WatchlistValidator.dates(request.dates, today: today(for: owner)) }
        let dates = newDates
        let cabin = request.hasCabin ? try WatchlistValidator.cabin(request.cabin) : nil
        let threshold = request.hasPriceThreshold && !request.clearPriceThreshold_p ? try WatchlistValidator.threshold(request.priceThreshold) : nil
        // The threshold in effect after the update, checked against the origin in effect when either changes.
        let kept = request.clearPriceThreshold_p ? nil : current.threshold
        if let effective = threshold ?? (origin != current.origin ? kept : nil) {
            try await validator.thresholdCurrency(effective, origin: try await validator.airport(origin, field: "origin"))
        }
        let mode = request.hasAlertMode ? try WatchlistValidator.alertMode(request.alertMode) : nil
        let mute = request.hasMuteDays ? try WatchlistValidator.muteDays(request.muteDays) : nil
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        let updated = try write { db throws(WatchlistError) -> WatchlistRecord in
            guard var record = try Self.catching({ try WatchlistRecord.fetchOne(db, key: request.watchlistID) }), record.userID == request.userID else {
                throw .notFound(request.watchlistID)
            }
            let tripChanged = origin != record.origin || destination != record.destination || dates.map { $0 != record.storedDates } ?? false
                || cabin.map { $0.rawValue != record.cabin } ?? false
            record.origin = origin
            record.destination = destination
            if let (from, to) = places { record.setPlaces(origin: from, destination: to) }
            if let dates { record.storedDates = dates }
            if let cabin { record.cabin = cabin.rawValue }
            if tripChanged {
                record.forgetLastCheck()
                try Self.refuseSameTrip(as: record, in: db)
            }
            if request.clearPriceThreshold_p || threshold != nil {
                record.thresholdMinorUnits = threshold?.minorUnits
                record.thresholdCurrency = threshold?.currency ?? ""
                record.belowThreshold = false
            }
            if let mode { record.alertMode = mode.rawValue }
            if let mute { record.muteUntilUnixMs = mute == 0 ? 0 : nowMs + Int64(mute) * 86_400_000 }
            var change = WatchlistChanged.Change.updated
            if request.hasActive, request.active != record.active {
                if request.active, let owner {
                    try Self.catching { try Self.save(owner, in: db) }
                    if let limit = owner.activeLimit, try Self.catching({ try Self.activeCount(owner.userID, in: db) }) >= limit {
                        throw .watchlistLimit(limit, tier: Self.tierName(owner.tierValue))
                    }
                }
                record.active = request.active
                record.inactiveReason = request.active ? 0 : Watchlist.InactiveReason.byUser.rawValue
                change = request.active ? .activated : .deactivated
            }
            record.updatedAtUnixMs = nowMs
            try Self.catching { try record.update(db) }
            try self.appendChange(change, record, at: now, parent: context, in: db)
            return record
        }
        var response = UpdateWatchlistResponse()
        response.watchlist = updated.message
        return response
    }

    /// Deletes for good; publishes `WatchlistChanged(DELETED)` with the watchlist as it was.
    func delete(_ request: DeleteWatchlistRequest, context: RequestContext? = nil) throws(WatchlistError) -> DeleteWatchlistResponse {
        let now = clock.now()
        let record = try write { db throws(WatchlistError) -> WatchlistRecord in
            guard let record = try Self.catching({ try WatchlistRecord.fetchOne(db, key: request.watchlistID) }), record.userID == request.userID else {
                throw .notFound(request.watchlistID)
            }
            _ = try Self.catching { try record.delete(db) }
            try self.appendChange(.deleted, record, at: now, parent: context, in: db)
            return record
        }
        var response = DeleteWatchlistResponse()
        response.watchlistID = record.watchlistID
        return response
    }

    /// The user's watchlists, newest first, with the active count and the
    /// tier's limit as last learned from the subscription service.
    func list(_ request: ListWatchlistsRequest) async throws(WatchlistError) -> ListWatchlistsResponse {
        guard !request.userID.isEmpty else { throw .invalidField("user_id", "is required") }
        let (records, owner) = try read { db in
            // A cached statement: the hot path (p99 target 1 ms), so the SQL is prepared once per connection.
            let statement = try db.cachedStatement(sql: """
                SELECT * FROM watchlist WHERE userID = ? AND (active OR ?) ORDER BY createdAtUnixMs DESC, watchlistID DESC
                """)
            let owner = try db.cachedStatement(sql: "SELECT * FROM owner WHERE userID = ?")
            return (
                try WatchlistRecord.fetchAll(statement, arguments: [request.userID, request.includeInactive]),
                try OwnerRecord.fetchOne(owner, arguments: [request.userID])
            )
        }
        // Nothing stored for this id: ask subscription, so an unknown user is unknown-user, as everywhere else, not an empty list.
        var known = owner
        if known == nil, records.isEmpty { known = try await currentOwner(request.userID) }
        var response = ListWatchlistsResponse()
        response.watchlists = records.map(\.message)
        response.activeCount = Int32(records.count(where: \.active))
        if let limit = known?.activeLimit { response.activeLimit = Int32(limit) }
        return response
    }

    /// The distinct routes on active watchlists, most watched first.
    func watchedRoutes(_ request: WatchedRoutesRequest) throws(WatchlistError) -> WatchedRoutesResponse {
        guard request.limit >= 0 else { throw .invalidField("limit", "must not be negative") }
        let routes = try read { db in
            try Row.fetchAll(db, sql: """
                SELECT origin, destination, cabin, COUNT(*) AS watchers FROM watchlist WHERE active = 1
                GROUP BY origin, destination, cabin ORDER BY watchers DESC, origin, destination, cabin
                \(request.limit > 0 ? "LIMIT \(request.limit)" : "")
                """).map { row in
                var route = WatchedRoute()
                route.origin = row["origin"]
                route.destination = row["destination"]
                route.cabin = Cabin(rawValue: row["cabin"]) ?? .economy
                route.watchlistCount = row["watchers"]
                return route
            }
        }
        var response = WatchedRoutesResponse()
        response.routes = routes
        return response
    }

    // MARK: Helpers

    func owned(_ watchlistID: String, by userID: String) throws(WatchlistError) -> WatchlistRecord {
        let record = try read { db in try WatchlistRecord.fetchOne(db, key: watchlistID) }
        guard let record, record.userID == userID else { throw .notFound(watchlistID) }
        return record
    }

    /// Throws `watchlist-exists` when another of the user's watchlists,
    /// active or not, has `record`'s route, dates and cabin. Inside the
    /// write transaction that stores `record`, so two concurrent creates of
    /// one trip cannot both pass.
    static func refuseSameTrip(as record: WatchlistRecord, in db: Database) throws(WatchlistError) {
        let route: SQLExpression = Column("userID") == record.userID && Column("watchlistID") != record.watchlistID
            && Column("origin") == record.origin && Column("destination") == record.destination && Column("cabin") == record.cabin
        let trip: SQLExpression = Column("flexible") == record.flexible && Column("minTripDays") == record.minTripDays
            && Column("maxTripDays") == record.maxTripDays && Column("departureDate") == record.departureDate && Column("returnDate") == record.returnDate
        let range: SQLExpression = Column("rangeStart") == record.rangeStart && Column("rangeEnd") == record.rangeEnd
            && Column("weekendsOnly") == record.weekendsOnly
        let same = try catching { try WatchlistRecord.filter(route && trip && range).fetchOne(db) }
        guard let same else { return }
        throw .watchlistExists(same.watchlistID, route: "\(record.origin)→\(record.destination)", active: same.active)
    }

    static func activeCount(_ userID: String, in db: Database) throws -> Int {
        try WatchlistRecord.filter(Column("userID") == userID && Column("active") == true).fetchCount(db)
    }

    static func tierName(_ tier: Tier) -> String {
        switch tier {
        case .free: "Free"
        case .pro: "Pro"
        case .trial: "The trial"
        default: "This tier"
        }
    }
}

extension WatchlistRecord {
    /// The dates in the table's form.
    var storedDates: StoredDates {
        get {
            StoredDates(
                flexible: flexible, minTripDays: minTripDays, maxTripDays: maxTripDays, departure: departureDate, return: returnDate,
                rangeStart: rangeStart, rangeEnd: rangeEnd, weekendsOnly: weekendsOnly)
        }
        set {
            flexible = newValue.flexible
            minTripDays = newValue.minTripDays
            maxTripDays = newValue.maxTripDays
            departureDate = newValue.departure
            returnDate = newValue.return
            rangeStart = newValue.rangeStart
            rangeEnd = newValue.rangeEnd
            weekendsOnly = newValue.weekendsOnly
        }
    }

    /// Forgets the last check and re-arms the threshold.
    mutating func forgetLastCheck() {
        lastPriceMinorUnits = nil
        lastPriceCurrency = ""
        lastChangeMinorUnits = nil
        lastChangeBasisPoints = nil
        lastCheckedAtUnixMs = 0
        lastDepartureDate = 0
        lastReturnDate = 0
        lastOfferID = ""
        lastProvider = ""
        lastSimulated = false
        lastStale = false
        belowThreshold = false
        lastComparedMinorUnits = nil
        lastComparedCurrency = ""
        lastExchangeRate = ""
        lastExchangeRateDate = ""
        pairCursor = 0
        lastScannedPairs = ""
        lastRangePairs = 0
    }
}
