public import FareLensBus
import FareLensMessages
public import FareLensStore
import FareLensServiceKit
import GRDB
public import Logging

/// The sweep's targets as search keeps them in its own database, from the
/// events of the services that own them: watched routes from the watchlist
/// service's `WatchlistChanged`, preferred airports from the subscription
/// service's `UserPreferencesChanged`, and neither for a user after
/// `UserDeleted`. Search asks neither service anything, so the request
/// graph stays one-way (docs/architecture.md): they ask search for
/// airports and prices, and search never asks them back.
///
/// The events are durable, so none is lost between processes; each one
/// carries the state after it (never a difference), so applying one twice
/// changes nothing, and an event older than what a row holds is not
/// applied over it. `UserDeleted` leaves a mark, so a watchlist event of a
/// deleted user that arrives after it (the two services' events reach
/// search in no common order) brings nothing back; a deleted watchlist
/// leaves one too, so an earlier event of it delivered again after the
/// deletion (a lost acknowledgement) does not bring it back either.
///
/// The answers are those of the watchlist service's `WatchedRoutes` and
/// the subscription service's `PreferredAirportSummary` once the events
/// have arrived (`SweepTargetsFollowTests`), in the same order.
public struct KeptSweepTargets: SweepTargets {
    let database: ServiceDatabase
    /// Most watched routes and preferred airports taken per sweep (the sweep's share of quota).
    let watchedLimit: Int
    let airportLimit: Int
    let logger: Logger

    /// Targets kept in `database` (whose migrations include `search-002-sweep-targets`).
    public init(database: ServiceDatabase, watchedLimit: Int, airportLimit: Int, logger: Logger) {
        self.database = database
        self.watchedLimit = watchedLimit
        self.airportLimit = airportLimit
        self.logger = logger
    }

    /// The subscriptions the targets follow, made before the node says
    /// hello so their topics are routed to it from the start.
    public struct Subscriptions: Sendable {
        let watchlists: EventSubscription<WatchlistChanged>
        let preferences: EventSubscription<UserPreferencesChanged>
        let deletions: EventSubscription<UserDeleted>

        /// Subscribes on `bus`.
        public init(on bus: MessageBus) {
            watchlists = bus.subscribe(WatchlistChanged.self)
            preferences = bus.subscribe(UserPreferencesChanged.self)
            deletions = bus.subscribe(UserDeleted.self)
        }

        func cancel() {
            watchlists.cancel()
            preferences.cancel()
            deletions.cancel()
        }
    }

    /// Applies the events of `subscriptions` as they arrive, each committed
    /// before the next is taken (so a durable event from another node is
    /// acknowledged only once applied), until cancelled.
    public func follow(_ subscriptions: Subscriptions) async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { for await delivery in subscriptions.watchlists { apply(delivery.event, id: delivery.metadata.id) } }
                group.addTask { for await delivery in subscriptions.preferences { apply(delivery.event) } }
                group.addTask { for await delivery in subscriptions.deletions { apply(delivery.event) } }
            }
        } onCancel: {
            subscriptions.cancel()
        }
    }

    // MARK: Answers

    public func watchedRoutes() async -> [MarketSweep.Route] {
        guard watchedLimit > 0 else { return [] }
        return allWatchedRoutes(limit: watchedLimit).map(\.route)
    }

    public func preferredAirports() async -> [String] {
        guard airportLimit > 0 else { return [] }
        return allPreferredAirports(limit: airportLimit).map(\.airport)
    }

    /// Routes on active watchlists with their watchers, most watched first
    /// (the order and counts of `WatchedRoutes`), at most `limit`.
    func allWatchedRoutes(limit: Int = -1) -> [(route: MarketSweep.Route, watchers: Int)] {
        read("watched routes") { db in
            try Row.fetchAll(db, sql: """
                SELECT origin, destination, cabin, COUNT(*) AS watchers FROM sweep_watchlist WHERE active = 1
                GROUP BY origin, destination, cabin ORDER BY watchers DESC, origin, destination, cabin LIMIT ?
                """, arguments: [limit]
            ).map { row in
                (MarketSweep.Route(origin: row["origin"], destination: row["destination"], cabin: Cabin(rawValue: row["cabin"]) ?? .economy), row["watchers"])
            }
        }
    }

    /// Preferred airports with their users, most preferred first (the order
    /// and counts of `PreferredAirportSummary`), at most `limit`.
    func allPreferredAirports(limit: Int = -1) -> [(airport: String, users: Int)] {
        read("preferred airports") { db in
            try Row.fetchAll(db, sql: """
                SELECT airport, COUNT(*) AS users FROM sweep_preferred_airport GROUP BY airport ORDER BY users DESC, airport LIMIT ?
                """, arguments: [limit]
            ).map { row in (row["airport"], row["users"]) }
        }
    }

    // MARK: Applying events

    /// A watchlist as it stands after `event`, published as `id`: kept
    /// (active or not), or forgotten when deleted, for good (a mark in
    /// `sweep_deleted_watchlist`). Not applied over a newer change
    /// (``ChangeStamp``: its time, then its place in its publisher's sequence).
    func apply(_ event: WatchlistChanged, id: EventID? = nil) {
        write("watchlist change", ["watchlist": "\(event.watchlist.watchlistID)"]) { db in
            let userID = event.watchlist.userID
            let watchlistID = event.watchlist.watchlistID
            if let user = try SweptUserRecord.fetchOne(db, key: userID), user.deletedAtUnixMs != nil { return }
            if try SweptDeletedWatchlistRecord.exists(db, key: watchlistID) { return }
            if let kept = try SweptWatchlistRecord.fetchOne(db, key: watchlistID), !ChangeStamp(atUnixMs: event.atUnixMs, id: id).supersedes(kept.stamp) { return }
            if event.change == .deleted {
                _ = try SweptWatchlistRecord.deleteOne(db, key: watchlistID)
                try SweptDeletedWatchlistRecord(watchlistID: watchlistID, deletedAtUnixMs: event.atUnixMs).save(db)
            } else {
                try SweptWatchlistRecord(event, id: id).save(db)
            }
        }
    }

    /// A user's preferred airports as they stand after `event`.
    func apply(_ event: UserPreferencesChanged) {
        write("preferences change", ["user": "\(event.userID)"]) { db in
            var user = try SweptUserRecord.fetchOne(db, key: event.userID) ?? SweptUserRecord(userID: event.userID, preferencesAtUnixMs: Int64.min)
            guard user.deletedAtUnixMs == nil, user.preferencesAtUnixMs <= event.atUnixMs else { return }
            user.preferencesAtUnixMs = event.atUnixMs
            try user.save(db)
            _ = try SweptAirportRecord.filter(Column("userID") == event.userID).deleteAll(db)
            for code in Set(event.preferredAirports.map(\.code)) where !code.isEmpty {
                try SweptAirportRecord(userID: event.userID, airport: code).insert(db)
            }
        }
    }

    /// A deleted user's watchlists and airports are forgotten, for good.
    func apply(_ event: UserDeleted) {
        write("user deletion", ["user": "\(event.userID)"]) { db in
            _ = try SweptWatchlistRecord.filter(Column("userID") == event.userID).deleteAll(db)
            _ = try SweptAirportRecord.filter(Column("userID") == event.userID).deleteAll(db)
            var user = try SweptUserRecord.fetchOne(db, key: event.userID) ?? SweptUserRecord(userID: event.userID, preferencesAtUnixMs: Int64.min)
            user.deletedAtUnixMs = event.atUnixMs
            try user.save(db)
        }
    }

    private func write(_ what: String, _ metadata: Logger.Metadata, _ body: @Sendable (Database) throws -> Void) {
        do {
            try database.writer.write { db in try body(db) }
        } catch {
            // Taken all the same (the sweep is a best use of spare quota, never a user's promise): logged, so an operator sees it.
            logger.error("market sweep: \(what) not kept", metadata: metadata.merging(["error": "\(error)"]) { $1 })
        }
    }

    private func read<T>(_ what: String, _ body: @Sendable (Database) throws -> [T]) -> [T] {
        do {
            return try database.writer.read { db in try body(db) }
        } catch {
            logger.notice("market sweep: \(what) unavailable; sweeping without them", metadata: ["error": "\(error)"])
            return []
        }
    }
}
