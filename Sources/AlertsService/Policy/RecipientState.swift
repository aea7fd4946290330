import FareLensMessages
import Foundation

/// What the policy must remember about one user to decide their next
/// alert: pause, mutes, what was sent in the last 12 hours, and today's
/// counts. Loaded from the alerts database in the deciding transaction
/// (`AlertRow.states(of:at:in:)`) and updated by the policy as it sends, so
/// candidates decided together see each other.
struct RecipientState: Sendable, Equatable {
    /// All alerts paused until then.
    var pausedUntil: Date?
    /// Muted routes ("LIS→LON") and until when.
    var mutedRoutes: [String: Date] = [:]
    /// When each route ("route:LIS→LON") and deal ("deal:ID") was last sent, within the dedupe window.
    var lastSent: [String: Date] = [:]
    /// Immediate alerts sent on `day` (the user's local calendar day).
    var sentOnDay = 0
    /// Whether quiet hours were broken for a truly exceptional deal on `day`.
    var quietExceptionUsed = false
    /// The local day the counts are for.
    var day: CalendarDate

    init(day: CalendarDate) {
        self.day = day
    }

    static func routeKey(_ origin: String, _ destination: String) -> String { "route:\(origin)→\(destination)" }
    static func dealKey(_ dealID: String) -> String { "deal:\(dealID)" }

    /// Remembers an alert sent at `instant`.
    mutating func recordSent(_ candidate: AlertCandidate, at instant: Date, quietException: Bool) {
        lastSent[Self.routeKey(candidate.origin, candidate.destination)] = instant
        if !candidate.dealID.isEmpty { lastSent[Self.dealKey(candidate.dealID)] = instant }
        sentOnDay += 1
        if quietException { quietExceptionUsed = true }
    }
}
