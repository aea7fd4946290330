import FareLensMessages
import Foundation

/// What the policy must remember about one user to decide their next
/// alert: pause, mutes, what was sent in the last 12 hours, and today's
/// counts. Loaded from the alerts database in the deciding transaction
/// (`AlertRow.states(of:at:metros:lookingUp:in:)`) and updated by the policy as it sends, so
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
    /// Airport → its metro (LHR → LON; "" for none), from search's directory:
    /// LON→EDI and LHR→EDI are one route for mutes and the 12-hour dedupe.
    var metros: [String: String] = [:]

    init(day: CalendarDate, metros: [String: String] = [:]) {
        self.day = day
        self.metros = metros
    }

    /// A code as routes are compared: its metro when it has one.
    func place(_ code: String) -> String {
        guard let metro = metros[code], !metro.isEmpty else { return code }
        return metro
    }

    /// The dedupe key of a route, by metro.
    func routeKey(_ origin: String, _ destination: String) -> String { "route:\(place(origin))→\(place(destination))" }
    /// The mute key of a route, by metro ("LON→EDI").
    func muteKey(_ origin: String, _ destination: String) -> String { "\(place(origin))→\(place(destination))" }
    static func dealKey(_ dealID: String) -> String { "deal:\(dealID)" }

    /// Remembers an alert recorded as sent at `decidedAtUnixMs` on
    /// `localDay` ("YYYY-MM-DD"), as the database holds it: for the dedupe
    /// when it is not before `dedupingSince`, and in the day's counts when
    /// `localDay` is ``day``.
    mutating func rememberSent(
        origin: String, destination: String, dealID: String, at decidedAtUnixMs: Int64, localDay: String, quietException: Bool, dedupingSince: Int64
    ) {
        if decidedAtUnixMs >= dedupingSince {
            let instant = Date(unixMilliseconds: decidedAtUnixMs)
            let routeKey = routeKey(origin, destination)
            lastSent[routeKey] = max(lastSent[routeKey] ?? instant, instant)
            if !dealID.isEmpty { lastSent[Self.dealKey(dealID)] = instant }
        }
        if localDay == day.description {
            sentOnDay += 1
            if quietException { quietExceptionUsed = true }
        }
    }

    /// Remembers an alert sent at `instant`.
    mutating func recordSent(_ candidate: AlertCandidate, at instant: Date, quietException: Bool) {
        lastSent[routeKey(candidate.origin, candidate.destination)] = instant
        if !candidate.dealID.isEmpty { lastSent[Self.dealKey(candidate.dealID)] = instant }
        sentOnDay += 1
        if quietException { quietExceptionUsed = true }
    }
}
