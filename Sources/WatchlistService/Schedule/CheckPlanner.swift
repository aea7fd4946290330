import Foundation

/// Plans checks for many users at once. Users in the same time zone on the
/// same schedule share their local slots, so the slots are worked out once
/// per (time zone, Pro or Free) and each user only adds their jitter: the
/// cost is one ``CheckSchedule`` computation per zone, not per user.
enum CheckPlanner {
    /// Who is planned: enough of an ``OwnerRecord`` to place their checks.
    struct Planned: Sendable, Hashable {
        var userID: String
        var timeZone: String
        var pro: Bool
    }

    /// One planned check.
    struct Slot: Sendable, Equatable {
        var userID: String
        var at: Date
    }

    /// Every check of `users` in [start, start + 24 h), in time order.
    static func day(_ users: [Planned], from start: Date) -> [Slot] {
        let end = start.addingTimeInterval(86_400)
        var slots: [Slot] = []
        slots.reserveCapacity(users.count * 2)
        forEachGroup(users, from: start.addingTimeInterval(-Double(CheckSchedule.jitterWindowSeconds)), to: end) { user, base in
            let jitter = Double(CheckSchedule.jitter(forUser: user.userID))
            for instant in base {
                let at = instant.addingTimeInterval(jitter)
                if at >= start, at < end { slots.append(Slot(userID: user.userID, at: at)) }
            }
        }
        slots.sort { ($0.at, $0.userID) < ($1.at, $1.userID) }
        return slots
    }

    /// Each user's first check strictly after `instant`.
    static func next(_ users: [Planned], after instant: Date) -> [String: Date] {
        var next: [String: Date] = [:]
        next.reserveCapacity(users.count)
        // Two local days after the instant always hold a slot; the window
        // starts a jitter earlier so a slot just before `instant` is seen.
        forEachGroup(users, from: instant.addingTimeInterval(-Double(CheckSchedule.jitterWindowSeconds)), to: instant.addingTimeInterval(3 * 86_400)) { user, base in
            let jitter = Double(CheckSchedule.jitter(forUser: user.userID))
            next[user.userID] = base.lazy.map { $0.addingTimeInterval(jitter) }.first { $0 > instant }
        }
        return next
    }

    /// Calls `body` for each user with the unjittered slots of their zone
    /// and schedule in [from, to), computed once per group.
    private static func forEachGroup(_ users: [Planned], from: Date, to: Date, _ body: (Planned, [Date]) -> Void) {
        var cache: [GroupKey: [Date]] = [:]
        for user in users {
            let key = GroupKey(timeZone: user.timeZone, pro: user.pro)
            let base: [Date]
            if let cached = cache[key] {
                base = cached
            } else {
                let schedule = CheckSchedule(localMinutes: user.pro ? CheckSchedule.proMinutes : CheckSchedule.freeMinutes, jitterSeconds: 0)
                base = schedule.instants(from: from, to: to, in: TimeZone(identifier: user.timeZone) ?? .gmt)
                cache[key] = base
            }
            body(user, base)
        }
    }

    private struct GroupKey: Hashable {
        var timeZone: String
        var pro: Bool
    }
}
