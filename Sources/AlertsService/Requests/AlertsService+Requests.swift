import FareLensBus
import FareLensMessages
import Foundation
import GRDB

/// Requests: a user's decisions, mutes, pause, settings.
extension AlertsService {
    /// A user's decisions, newest first, each with its reason and delivery state.
    func history(_ request: AlertHistoryRequest) async throws(AlertsError) -> AlertHistoryResponse {
        try Self.requireUser(request.userID)
        guard (0...500).contains(request.limit) else { throw .invalidField("limit", "must be 0 (meaning 50) to 500, got \(request.limit)") }
        guard request.sinceUnixMs >= 0 else { throw .invalidField("since_unix_ms", "must not be negative") }
        let limit = request.limit == 0 ? 50 : Int(request.limit)
        let (rows, deliveries) = try read { db in
            var query = AlertRow.filter(Column("userID") == request.userID && Column("decidedAtUnixMs") >= request.sinceUnixMs)
            if request.decision != .unspecified { query = query.filter(Column("decision") == request.decision.rawValue) }
            let rows = try query.order(Column("decidedAtUnixMs").desc, Column("alertID")).limit(limit).fetchAll(db)
            return (rows, try OutboxRow.deliveries(ofAlerts: rows.map(\.alertID), in: db))
        }
        // No decisions: ask subscription, so an unknown user is unknown-user, as everywhere else, not an empty history.
        if rows.isEmpty { try await requireKnownUser(request.userID) }
        var response = AlertHistoryResponse()
        response.alerts = rows.map { row in
            var record = row.message
            record.deliveries = deliveries[row.alertID] ?? []
            return record
        }
        return response
    }

    /// Mutes a route (this direction) for `days` (default 30); extends a shorter mute, never shortens one.
    func mute(_ request: MuteRouteRequest) async throws(AlertsError) -> MuteRouteResponse {
        try Self.requireUser(request.userID)
        let (origin, destination) = try Self.route(request.origin, request.destination)
        guard (0...365).contains(request.days) else { throw .invalidField("days", "must be 0 (meaning 30) to 365, got \(request.days)") }
        try await requireRoute(origin, destination)
        try await requireKnownUser(request.userID)
        let until = clock.now().addingTimeInterval(Double(request.days == 0 ? 30 : request.days) * 86_400).unixMilliseconds
        let usersWithState = usersWithState
        let effective = try await write { db throws(AlertsError) in
            try Self.catching {
                usersWithState.insert(request.userID)
                let existing = try RouteMuteRow.fetchOne(db, key: ["userID": request.userID, "origin": origin, "destination": destination])
                let row = RouteMuteRow(userID: request.userID, origin: origin, destination: destination, mutedUntilUnixMs: max(until, existing?.mutedUntilUnixMs ?? 0))
                try row.save(db)
                return row.mutedUntilUnixMs
            }
        }
        var response = MuteRouteResponse()
        response.mutedUntilUnixMs = effective
        return response
    }

    /// Undoes a mute at once.
    func unmute(_ request: UnmuteRouteRequest) async throws(AlertsError) -> UnmuteRouteResponse {
        try Self.requireUser(request.userID)
        let (origin, destination) = try Self.route(request.origin, request.destination)
        let nowMs = clock.now().unixMilliseconds
        let wasMuted = try await write { db throws(AlertsError) in
            try Self.catching {
                let existing = try RouteMuteRow.fetchOne(db, key: ["userID": request.userID, "origin": origin, "destination": destination])
                _ = try RouteMuteRow.deleteOne(db, key: ["userID": request.userID, "origin": origin, "destination": destination])
                return (existing?.mutedUntilUnixMs ?? 0) > nowMs
            }
        }
        var response = UnmuteRouteResponse()
        response.wasMuted = wasMuted
        return response
    }

    /// Pauses every alert for `hours` (default 24); extends a shorter pause.
    func pause(_ request: PauseAlertsRequest) async throws(AlertsError) -> PauseAlertsResponse {
        try Self.requireUser(request.userID)
        guard (0...(24 * 30)).contains(request.hours) else { throw .invalidField("hours", "must be 0 (meaning 24) to 720, got \(request.hours)") }
        try await requireKnownUser(request.userID)
        let until = clock.now().addingTimeInterval(Double(request.hours == 0 ? 24 : request.hours) * 3_600).unixMilliseconds
        let usersWithState = usersWithState
        let effective = try await write { db throws(AlertsError) in
            try Self.catching {
                usersWithState.insert(request.userID)
                let existing = try AlertPauseRow.fetchOne(db, key: request.userID)
                let row = AlertPauseRow(userID: request.userID, pausedUntilUnixMs: max(until, existing?.pausedUntilUnixMs ?? 0))
                try row.save(db)
                return row.pausedUntilUnixMs
            }
        }
        var response = PauseAlertsResponse()
        response.pausedUntilUnixMs = effective
        return response
    }

    /// Undoes a pause at once.
    func resume(_ request: ResumeAlertsRequest) async throws(AlertsError) -> ResumeAlertsResponse {
        try Self.requireUser(request.userID)
        let nowMs = clock.now().unixMilliseconds
        let wasPaused = try await write { db throws(AlertsError) in
            try Self.catching {
                let existing = try AlertPauseRow.fetchOne(db, key: request.userID)
                _ = try AlertPauseRow.deleteOne(db, key: request.userID)
                return (existing?.pausedUntilUnixMs ?? 0) > nowMs
            }
        }
        var response = ResumeAlertsResponse()
        response.wasPaused = wasPaused
        return response
    }

    /// The user's mutes and pause in force now.
    func settings(_ request: AlertSettingsRequest) throws(AlertsError) -> AlertSettingsResponse {
        try Self.requireUser(request.userID)
        let nowMs = clock.now().unixMilliseconds
        let (mutes, pause) = try read { db in
            (try RouteMuteRow.filter(Column("userID") == request.userID && Column("mutedUntilUnixMs") > nowMs).order(Column("origin"), Column("destination")).fetchAll(db),
             try AlertPauseRow.fetchOne(db, key: request.userID))
        }
        var response = AlertSettingsResponse()
        response.mutedRoutes = mutes.map { mute in
            var route = MutedRoute()
            route.origin = mute.origin
            route.destination = mute.destination
            route.mutedUntilUnixMs = mute.mutedUntilUnixMs
            return route
        }
        if let pause, pause.pausedUntilUnixMs > nowMs { response.pausedUntilUnixMs = pause.pausedUntilUnixMs }
        return response
    }

    /// Erases everything about a deleted user: first delivery's part (outbox
    /// rows and devices, ``AlertDelivery/erase(_:)``), so nothing more is
    /// sent to them, then decisions, mutes, pause, and the user's set-aside
    /// events (their content names the user).
    func erase(_ userID: String) async {
        do {
            try await delivery.erase(userID)
            let erased = try await database.writeToEnd { db in
                _ = try RouteMuteRow.filter(Column("userID") == userID).deleteAll(db)
                _ = try AlertPauseRow.deleteOne(db, key: userID)
                _ = try SetAsideEventRow.filter(Column("userID") == userID).deleteAll(db)
                return try AlertRow.filter(Column("userID") == userID).deleteAll(db)
            }
            logger.info("deleted user's alerts erased", metadata: ["user": "\(userID)", "alerts": "\(erased)"])
        } catch {
            logger.error("deleted user's alerts not erased", metadata: ["user": "\(userID)", "error": "\(error)"])
        }
    }

    /// Upper-cased three-letter codes.
    static func route(_ origin: String, _ destination: String) throws(AlertsError) -> (String, String) {
        let codes = [("origin", origin), ("destination", destination)].map { ($0.0, $0.1.trimmingCharacters(in: .whitespaces).uppercased()) }
        for (field, code) in codes where code.count != 3 || !code.allSatisfy({ $0.isASCII && $0.isLetter }) {
            throw .invalidField(field, "'\(code)' is not a three-letter IATA code")
        }
        guard codes[0].1 != codes[1].1 else { throw .invalidField("destination", "must differ from origin") }
        return (codes[0].1, codes[1].1)
    }

    /// Asks search's directory whether both codes are known and can be a
    /// route (not one city, like LON and LHR): a mute of a route no alert
    /// can be about is refused, not stored. A mute is never refused because
    /// the directory cannot be asked (a user asking for quiet gets it; the
    /// codes go unchecked, with a warning), and unmute does not ask, so a
    /// mute stays removable whatever the directory says.
    func requireRoute(_ origin: String, _ destination: String) async throws(AlertsError) {
        var places: [KnownPlace] = []
        for (field, code) in [("origin", origin), ("destination", destination)] {
            let place: KnownPlace?
            do {
                place = try await AirportLookupRequest.place(code, on: bus)
            } catch {
                logger.warning("route muted without checking its codes: search's directory cannot be asked", metadata: ["route": "\(origin)-\(destination)", "error": "\(error)"])
                return
            }
            guard let place else { throw .unknownAirport(code, field: field) }
            places.append(place)
        }
        if let refusal = KnownPlace.sameCityRefusal(origin: places[0], destination: places[1]) { throw .invalidField("destination", refusal) }
    }

    /// Asks subscription whether the user exists.
    func requireKnownUser(_ userID: String) async throws(AlertsError) {
        let found: GetUserResponse?
        do {
            found = try await GetUserRequest.user(userID, on: bus)
        } catch {
            throw .subscriptionUnavailable(cause: error)
        }
        guard found != nil else { throw .unknownUser(userID) }
    }
}
