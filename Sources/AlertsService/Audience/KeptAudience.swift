import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import GRDB
import Logging

/// Who an alert can reach and their alert settings, as alerts keeps them in
/// its own database from the events of the services that own them: users'
/// time zones, quiet hours, currencies and preferred airports (with their
/// weights) from the subscription service's `UserPreferencesChanged`, their
/// tiers and daily caps from it and from `TierChanged`, watchlists from the
/// watchlist service's `WatchlistChanged`, and nothing for a user after
/// `UserDeleted`. Alerts asks neither service anything when it decides, so
/// a batch is decided without waiting for them (issue #64's one-way request
/// graph; docs/architecture.md).
///
/// The events are durable, so none is lost between processes; each carries
/// the state after it (never a difference), so applying one twice changes
/// nothing, and an event older than what a row holds is not applied over
/// it. `UserDeleted` leaves a mark, so an event of a deleted user that
/// arrives after it (the two services' events reach alerts in no common
/// order) brings nothing back; a deleted watchlist leaves one too, so an
/// earlier event of it delivered again after the deletion (a lost
/// acknowledgement) does not bring it back either. The answers are those of subscription's
/// `PreferredAirportUsers`, `GetUsers` and watchlist's `RouteWatchers`
/// once the events have arrived (`KeptAudienceTests`, `AudienceFollowTests`). After an upgrade, both services
/// announce what they hold once (migrations `subscription-008-…` and
/// `watchlist-006-…`), so alerts does not start empty.
struct KeptAudience: Sendable {
    let database: ServiceDatabase
    /// What a failed write waits on before it is tried again (real time in production, a test's clock in tests).
    let transport: TransportClock
    let logger: Logger

    /// The subscriptions the audience follows, made before the node says
    /// hello so their topics are routed to it from the start.
    struct Subscriptions: Sendable {
        let watchlists: EventSubscription<WatchlistChanged>
        let preferences: EventSubscription<UserPreferencesChanged>
        let tiers: EventSubscription<TierChanged>
        let deletions: EventSubscription<UserDeleted>

        /// Subscribes on `bus`.
        init(on bus: MessageBus) {
            watchlists = bus.subscribe(WatchlistChanged.self)
            preferences = bus.subscribe(UserPreferencesChanged.self)
            tiers = bus.subscribe(TierChanged.self)
            deletions = bus.subscribe(UserDeleted.self)
        }

        func cancel() {
            watchlists.cancel()
            preferences.cancel()
            tiers.cancel()
            deletions.cancel()
        }
    }

    /// Applies the events of `subscriptions` as they arrive, each committed
    /// before the next is taken (so a durable event from another node is
    /// acknowledged only once applied), until cancelled.
    func follow(_ subscriptions: Subscriptions) async {
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { for await delivery in subscriptions.watchlists { await apply(delivery.event, id: delivery.metadata.id) } }
                group.addTask { for await delivery in subscriptions.preferences { await apply(delivery.event) } }
                group.addTask { for await delivery in subscriptions.tiers { await apply(delivery.event) } }
                group.addTask { for await delivery in subscriptions.deletions { await apply(delivery.event) } }
            }
        } onCancel: {
            subscriptions.cancel()
        }
    }

    // MARK: Answers

    /// Every user preferring `airport` or `metro` (a user who prefers LON
    /// hears of a deal from LCY), once each with the higher weight, in
    /// user-id order: subscription's `PreferredAirportUsers` for both codes, merged.
    ///
    /// - Throws: the database's error.
    func preferring(_ airport: String, orMetro metro: String?) async throws -> [PreferredAirportUser] {
        let codes = [airport] + (metro.map { [$0] } ?? [])
        return try await database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT userID, MAX(weight) AS weight FROM audience_airport WHERE airport IN (\(Self.marks(codes.count)))
                GROUP BY userID ORDER BY userID
                """, arguments: StatementArguments(codes)
            ).map { row in
                var user = PreferredAirportUser()
                user.userID = row["userID"]
                user.weight = row["weight"]
                return user
            }
        }
    }

    /// The users with an active watchlist whose origin is one of `origins`,
    /// destination one of `destinations` and cabin `cabin` (unspecified:
    /// economy): watchlist's `RouteWatchers`.
    ///
    /// - Throws: the database's error.
    func watchers(origins: [String], destinations: [String], cabin: Cabin) async throws -> Set<String> {
        let cabin = cabin == .unspecified ? Cabin.economy : cabin
        let arguments = StatementArguments(origins) + StatementArguments(destinations) + [cabin.rawValue]
        return try await database.writer.read { db in
            Set(try String.fetchAll(db, sql: """
                SELECT DISTINCT userID FROM audience_watchlist
                WHERE active = 1 AND origin IN (\(Self.marks(origins.count))) AND destination IN (\(Self.marks(destinations.count))) AND cabin = ?
                """, arguments: arguments))
        }
    }

    /// The users of `userIDs` alerts can decide for (``AudienceUserRecord/isKnown``), and those deleted.
    /// Read on one of the pool's readers, off the caller's actor (a batch's thousand users; the actor goes on
    /// meanwhile, as it did while subscription answered), each row read by column, not decoded through `Codable`.
    ///
    /// - Throws: the database's error.
    func users(_ userIDs: [String]) async throws -> (known: [AudienceUserRecord], deleted: Set<String>) {
        try await database.writer.read { db in
            var known: [AudienceUserRecord] = []
            var deleted = Set<String>()
            known.reserveCapacity(userIDs.count)
            // In slices, within SQLite's limit on a statement's arguments.
            for start in stride(from: 0, to: userIDs.count, by: 500) {
                let slice = Array(userIDs[start..<min(userIDs.count, start + 500)])
                let rows = try Row.fetchCursor(db, sql: """
                    SELECT userID, preferencesAtUnixMs, deletedAtUnixMs, timeZone, quietHoursSet, quietDisabled, quietStartMinute, quietEndMinute,
                      currency, tier, dailyCap, tierAtUnixMs
                    FROM audience_user WHERE userID IN (\(Self.marks(slice.count)))
                    """, arguments: StatementArguments(slice))
                while let row = try rows.next() {
                    var record = AudienceUserRecord(userID: row[0], preferencesAtUnixMs: row[1], deletedAtUnixMs: row[2])
                    (record.timeZone, record.quietHoursSet, record.quietDisabled) = (row[3], row[4], row[5])
                    (record.quietStartMinute, record.quietEndMinute, record.currency) = (row[6], row[7], row[8])
                    (record.tier, record.dailyCap, record.tierAtUnixMs) = (row[9], row[10], row[11])
                    if record.deletedAtUnixMs != nil { deleted.insert(record.userID) } else if record.isKnown { known.append(record) }
                }
            }
            return (known, deleted)
        }
    }

    /// How many users (those an alert can be decided for) and watchlists are kept (tests' sign that events arrived).
    func counts() throws -> (users: Int, watchlists: Int) {
        try database.writer.read { db in
            (try AudienceUserRecord.fetchAll(db).count { $0.isKnown }, try AudienceWatchlistRecord.fetchCount(db))
        }
    }

    private static func marks(_ count: Int) -> String {
        Array(repeating: "?", count: max(1, count)).joined(separator: ", ")
    }

    // MARK: Applying events

    /// A watchlist as it stands after `event`, published as `id`: kept
    /// (active or not), or forgotten when deleted, for good (a mark in
    /// `audience_deleted_watchlist`). Not applied over a newer change
    /// (``ChangeStamp``: its time, then its place in its publisher's sequence).
    func apply(_ event: WatchlistChanged, id: EventID? = nil) async {
        await write("watchlist change", ["watchlist": "\(event.watchlist.watchlistID)"]) { db in
            let watchlistID = event.watchlist.watchlistID
            if let user = try AudienceUserRecord.fetchOne(db, key: event.watchlist.userID), user.deletedAtUnixMs != nil { return }
            if try AudienceDeletedWatchlistRecord.exists(db, key: watchlistID) { return }
            if let kept = try AudienceWatchlistRecord.fetchOne(db, key: watchlistID), !ChangeStamp(atUnixMs: event.atUnixMs, id: id).supersedes(kept.stamp) { return }
            if event.change == .deleted {
                _ = try AudienceWatchlistRecord.deleteOne(db, key: watchlistID)
                try AudienceDeletedWatchlistRecord(watchlistID: watchlistID, deletedAtUnixMs: event.atUnixMs).save(db)
            } else {
                try AudienceWatchlistRecord(event, id: id).save(db)
            }
        }
    }

    /// A user's settings and preferred airports as they stand after `event`;
    /// its tier too, unless a `TierChanged` as new or newer was applied (an
    /// event written before this release names no tier: the tier is left as it is).
    func apply(_ event: UserPreferencesChanged) async {
        await write("preferences change", ["user": "\(event.userID)"]) { db in
            var user = try AudienceUserRecord.fetchOne(db, key: event.userID) ?? AudienceUserRecord(userID: event.userID)
            guard user.deletedAtUnixMs == nil, user.preferencesAtUnixMs <= event.atUnixMs else { return }
            user.preferencesAtUnixMs = event.atUnixMs
            user.timeZone = event.timeZone
            user.setQuietHours(event.hasQuietHours ? event.quietHours : nil)
            user.currency = event.currency
            // Strictly newer: in the same millisecond a TierChanged's tier stands (subscription writes a
            // preferences event with the tier it holds, so one written after that TierChanged names the same
            // tier, and one written before it names the old; the two topics reach alerts in no common order).
            if event.tier != .unspecified, user.tierAtUnixMs < event.atUnixMs {
                (user.tier, user.dailyCap, user.tierAtUnixMs) = (event.tier.rawValue, Int(event.entitlements.immediateAlertsPerDay), event.atUnixMs)
            }
            try user.save(db)
            _ = try AudienceAirportRecord.filter(Column("userID") == event.userID).deleteAll(db)
            var weights: [String: Double] = [:]
            for airport in event.preferredAirports where !airport.code.isEmpty {
                weights[airport.code.uppercased()] = max(weights[airport.code.uppercased()] ?? 0, airport.weight)
            }
            for (code, weight) in weights { try AudienceAirportRecord(userID: event.userID, airport: code, weight: weight).insert(db) }
        }
    }

    /// Users subscription answered for because no event had told alerts of
    /// them (``AlertsService/recipientsKept(_:)``: an alerts node that joined
    /// after they were created). Each is kept as an announcement at time 0,
    /// so that any event of subscription's about them, which comes later or
    /// is already on its way, supersedes the answer.
    func keep(answered users: [GetUserResponse]) async {
        for answer in users { await apply(UserPreferencesChanged(announcing: answer, atUnixMs: 0)) }
    }

    /// A user's tier and daily cap after `event`, unless newer ones were applied.
    func apply(_ event: TierChanged) async {
        await write("tier change", ["user": "\(event.userID)"]) { db in
            var user = try AudienceUserRecord.fetchOne(db, key: event.userID) ?? AudienceUserRecord(userID: event.userID)
            guard user.deletedAtUnixMs == nil, user.tierAtUnixMs <= event.atUnixMs, event.current != .unspecified else { return }
            (user.tier, user.dailyCap, user.tierAtUnixMs) = (event.current.rawValue, Int(event.entitlements.immediateAlertsPerDay), event.atUnixMs)
            try user.save(db)
        }
    }

    /// A deleted user's settings, watchlists and airports are forgotten, for good.
    func apply(_ event: UserDeleted) async {
        await write("user deletion", ["user": "\(event.userID)"]) { db in
            _ = try AudienceWatchlistRecord.filter(Column("userID") == event.userID).deleteAll(db)
            _ = try AudienceAirportRecord.filter(Column("userID") == event.userID).deleteAll(db)
            var user = AudienceUserRecord(userID: event.userID)
            user.deletedAtUnixMs = event.atUnixMs
            try user.save(db)
        }
    }

    /// `body` in a write transaction, tried again every second of the
    /// transport clock while it fails (a full disk), so an event is taken
    /// from its subscription — and a durable one acknowledged — only once
    /// kept; given up only when the task is cancelled (a stop: the event is
    /// delivered again after the restart).
    private func write(_ what: String, _ metadata: Logger.Metadata, _ body: @Sendable (Database) throws -> Void) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await database.writer.write { db in try body(db) }
                return
            } catch {
                if failures % 10 == 0 {
                    logger.error("exceptional-deal audience: \(what) not kept; trying again", metadata: metadata.merging(["error": "\(error)", "attempt": "\(failures + 1)"]) { $1 })
                }
                failures += 1
                try? await transport.sleep(for: .seconds(1))  // safe: real time (the transport clock): waiting for the failure to pass; ends on cancellation
            }
        }
    }
}
