import FareLensMessages
import Foundation
import GRDB
import Synchronization

/// The users for whom ``AlertRow/states(of:at:metros:lookingUp:in:)`` may find
/// anything — a sent decision within its look-back, a mute or a pause —
/// kept in memory so that a batch of decisions asks SQLite only about them.
/// Everyone else starts the batch with an empty state, as the query would
/// have found.
///
/// It is a **superset**, never a subset, which is what makes skipping the
/// query safe:
/// - it is loaded from the database inside a write transaction (so from
///   everything committed), the first time a batch asks and again after
///   ``forget()`` (retention, hourly) or when a batch looks back further
///   than the load did (a clock set back);
/// - every write that can give a user state — a sent decision, a mute, a
///   pause — adds the user in its own transaction (``insert(_:)``), on the
///   database's single writer;
/// - a rolled-back transaction leaves its users in the set: one query too
///   many, nothing missed.
///
/// Only this process writes the alerts database (each service owns its
/// database), so no row appears that the set did not see.
final class UsersWithPolicyState: Sendable {
    private struct Loaded {
        var users: Set<String>
        /// The earliest decision time the load covered.
        var lookBackUnixMs: Int64
    }

    private let loaded = Mutex<Loaded?>(nil)

    /// How far back the states query looks for sent decisions at `now`:
    /// the 12-hour dedupe window, and two days for "today" in any zone.
    static func lookBack(at now: Date) -> Int64 {
        min(now.addingTimeInterval(-AlertPolicy.dedupeWindow).unixMilliseconds, now.unixMilliseconds - 2 * 86_400_000)
    }

    /// The users among `userIDs` that may have state at `now`, in their
    /// order, loading the set first when it is not loaded or does not reach
    /// back far enough. Call it inside the write transaction that decides.
    func usersToLookUp(among userIDs: some Sequence<String>, at now: Date, in db: Database) throws -> [String] {
        let lookBack = Self.lookBack(at: now)
        let current = loaded.withLock { $0 }
        let users: Set<String>
        if let current, current.lookBackUnixMs <= lookBack {
            users = current.users
        } else {
            users = try Self.load(since: lookBack, in: db)
            loaded.withLock { $0 = Loaded(users: users, lookBackUnixMs: lookBack) }
        }
        return userIDs.filter { users.contains($0) }
    }

    /// For each of `userIDs`, whether the set holds it now; nil when the set
    /// is not loaded. Users it does not hold may be decided before the
    /// transaction, with the empty state. Only a hint: the transaction
    /// checks the set again (``usersToLookUp(among:at:in:)``), since a user
    /// may gain state meanwhile. Looked up under the lock, not copied out,
    /// so the writer's next ``insert(_:)`` does not copy the whole set.
    func mayHaveState(_ userIDs: [String]) -> [Bool]? {
        loaded.withLock { loaded in
            guard let loaded else { return nil }
            return userIDs.map { loaded.users.contains($0) }
        }
    }

    /// Remembers that `userID` may have state. Called in the transaction
    /// that gives it state. Before the first load it does nothing: the load
    /// will read the committed row.
    func insert(_ userID: String) {
        loaded.withLock { loaded in
            guard loaded != nil else { return }
            loaded?.users.insert(userID)
        }
    }

    /// Drops the set, to be loaded again by the next batch: users whose
    /// state has expired stop taking memory.
    func forget() {
        loaded.withLock { $0 = nil }
    }

    /// Whether the set is loaded (tests).
    var isLoaded: Bool { loaded.withLock { $0 != nil } }

    /// Every user with a sent decision since `lookBack`, a mute or a pause
    /// row (expired or not: a superset).
    private static func load(since lookBack: Int64, in db: Database) throws -> Set<String> {
        var users = Set<String>()
        let sent = try db.cachedStatement(sql: "SELECT DISTINCT userID FROM alert WHERE decision = \(AlertDecision.sent.rawValue) AND decidedAtUnixMs >= ?")
        let cursor = try String.fetchCursor(sent, arguments: [lookBack])
        while let userID = try cursor.next() { users.insert(userID) }
        for sql in ["SELECT DISTINCT userID FROM route_mute", "SELECT userID FROM alert_pause"] {
            let rows = try String.fetchCursor(db.cachedStatement(sql: sql))
            while let userID = try rows.next() { users.insert(userID) }
        }
        return users
    }
}
