import FareLensMessages
import Foundation

/// The alert policy of SPEC § 5 as a pure function: given a user, what is
/// remembered about them and the candidates that compete now, it decides
/// each one and says why. No I/O and no clock of its own, so every edge is
/// tested directly (`AlertPolicyTests`) and it runs at millions of decisions
/// a second (`alerts-benchmarks`).
///
/// The rules, in the order they are applied to each candidate:
/// 1. **Paused** (24 h by default) → `MUTED`.
/// 2. **Route muted** (30 days) or **watchlist muted** → `MUTED`.
/// 3. **Digest-only watchlist** → `HELD` for the digest; a price drop under
///    ``minimumDropBasisPoints`` → `NOT_ALERTABLE`.
/// 4. **Dedupe**: the same route or deal sent less than 12 hours ago → `DEDUPED`.
/// 5. **Quiet hours** (22:00–07:00 local unless the user set others) →
///    `HELD` for the digest, except one truly exceptional deal (more than
///    40% below average) per local day, which is sent if the cap allows.
/// 6. **Daily cap** (the tier's immediate alerts per local day) → `CAPPED`, for the digest.
/// 7. Otherwise → `SENT` (accepted into the outbox).
///
/// A trial-ending notice is a service message, not a fare alert: a pause
/// mutes it and quiet hours hold it for the digest, but no mute, dedupe or
/// cap applies and it uses none of the day's cap.
///
/// Candidates that compete (decided together) are taken highest queue
/// score first, so when the cap has room for one, the best one wins.
enum AlertPolicy {
    /// The same route or deal is not sent twice within this window.
    static let dedupeWindow: TimeInterval = 12 * 3_600
    /// A watchlist price drop smaller than this (5%) is not worth an alert.
    static let minimumDropBasisPoints: Int32 = 500

    /// One decision.
    struct Outcome: Sendable, Equatable {
        var candidate: AlertCandidate
        var decision: AlertDecision
        var reason: String
        /// Sent during quiet hours as the day's one exception.
        var quietException = false
    }

    /// One decision about the candidate at `index` among those decided
    /// together: an ``Outcome`` without a copy of the candidate.
    struct Verdict: Sendable, Equatable {
        var index: Int
        var decision: AlertDecision
        var reason: String
        var quietException = false
    }

    /// Decides `candidates` for `recipient` at `now`, updating `state` as alerts are sent.
    ///
    /// - Returns: one outcome per candidate, highest queue score first (ties: lower price, then route).
    static func decide(_ candidates: [AlertCandidate], for recipient: AlertRecipient, state: inout RecipientState, at now: Date) -> [Outcome] {
        verdicts(candidates, for: recipient, state: &state, at: now).map { verdict in
            Outcome(candidate: candidates[verdict.index], decision: verdict.decision, reason: verdict.reason, quietException: verdict.quietException)
        }
    }

    /// ``decide(_:for:state:at:)`` by index: one verdict per candidate, in
    /// the same order. The service's path (an outcome's copy of its candidate
    /// and the sorted copy of the candidates retained and released every
    /// string of each, 1.7% of the held decisions' CPU).
    static func verdicts(_ candidates: [AlertCandidate], for recipient: AlertRecipient, state: inout RecipientState, at now: Date) -> [Verdict] {
        let quiet = recipient.quietHours.contains(now, in: recipient.zone)
        var verdicts: [Verdict] = []
        verdicts.reserveCapacity(candidates.count)
        guard candidates.count > 1 else {
            if !candidates.isEmpty { verdicts.append(decideOne(candidates[0], index: 0, for: recipient, state: &state, at: now, quiet: quiet)) }
            return verdicts
        }
        // Fields read in place: a copy of each candidate compared retained its strings.
        let order = candidates.indices.sorted { lhs, rhs in
            if candidates[lhs].queueScore != candidates[rhs].queueScore { return candidates[lhs].queueScore > candidates[rhs].queueScore }
            if candidates[lhs].price.minorUnits != candidates[rhs].price.minorUnits { return candidates[lhs].price.minorUnits < candidates[rhs].price.minorUnits }
            return candidates[lhs].route < candidates[rhs].route
        }
        for index in order { verdicts.append(decideOne(candidates[index], index: index, for: recipient, state: &state, at: now, quiet: quiet)) }
        return verdicts
    }

    private static func decideOne(_ candidate: AlertCandidate, index: Int, for recipient: AlertRecipient, state: inout RecipientState, at now: Date, quiet: Bool) -> Verdict {
        func outcome(_ decision: AlertDecision, _ reason: String, quietException: Bool = false) -> Verdict {
            Verdict(index: index, decision: decision, reason: reason, quietException: quietException)
        }
        let zone = recipient.zone
        if let until = state.pausedUntil, until > now {
            return outcome(.muted, "All alerts paused until \(Self.localTime(until, in: zone))")
        }
        if candidate.kind == .trialEnding {
            if quiet { return outcome(.held, quietHoursReason(recipient)) }
            return outcome(.sent, "Sent: the trial ends tomorrow (a service notice: outside the daily cap)")
        }
        // Keys are built only when there is something to look up: most users have no mute and sent nothing lately.
        if !state.mutedRoutes.isEmpty, let until = state.mutedRoutes[state.muteKey(candidate.origin, candidate.destination)], until > now {
            return outcome(.muted, "Route \(candidate.route) muted until \(Self.localTime(until, in: zone))")
        }
        if let until = candidate.watchlistMutedUntil, until > now {
            return outcome(.muted, "Watchlist muted until \(Self.localTime(until, in: zone))")
        }
        if candidate.belowDropMinimum {
            return outcome(.notAlertable, "Price drop of \(Self.percent(candidate.discountBasisPoints)) is under the 5% worth an alert")
        }
        if candidate.digestOnly {
            return outcome(.held, "Watchlist is in daily-digest mode; in the next digest")
        }
        if !state.lastSent.isEmpty {
            for key in [state.routeKey(candidate.origin, candidate.destination)] + (candidate.dealID.isEmpty ? [] : [RecipientState.dealKey(candidate.dealID)]) {
                if let sent = state.lastSent[key], now.timeIntervalSince(sent) < dedupeWindow {
                    let what = key.hasPrefix("deal:") ? "This deal" : "Route \(candidate.route)"
                    return outcome(.deduped, "\(what) was alerted at \(Self.localTime(sent, in: zone)), less than 12 hours ago")
                }
            }
        }
        let capReached = state.sentOnDay >= recipient.dailyCap
        if quiet {
            let exception = candidate.kind == .exceptionalDeal && candidate.trulyExceptional && !state.quietExceptionUsed
            guard exception, !capReached else {
                let why = exception ? "; the day's cap is used too" : (candidate.kind == .exceptionalDeal && candidate.trulyExceptional ? "; tonight's one exceptional deal was already sent" : "")
                return outcome(.held, quietHoursReason(recipient, why))
            }
            state.recordSent(candidate, at: now, quietException: true)
            return outcome(.sent, "Quiet hours, but \(Self.percent(candidate.discountBasisPoints)) below average: the one exceptional deal allowed per night", quietException: true)
        }
        if capReached {
            return outcome(.capped, "Daily cap of \(recipient.dailyCap) immediate alerts (\(Self.tierName(recipient.tier))) reached; in the next digest")
        }
        state.recordSent(candidate, at: now, quietException: false)
        return outcome(.sent, "Sent: \(Self.why(candidate)) (\(state.sentOnDay) of \(recipient.dailyCap) today)")
    }

    /// The reason of an alert held in quiet hours: the recipient's shared
    /// one, unless there is more to say (`why`).
    private static func quietHoursReason(_ recipient: AlertRecipient, _ why: String = "") -> String {
        why.isEmpty ? recipient.heldReason : AlertRecipient.quietHoursReason(recipient.quietHours, in: recipient.zone, why)
    }

    private static func why(_ candidate: AlertCandidate) -> String {
        switch candidate.kind {
        case .exceptionalDeal: "exceptional deal (score \(candidate.dealScore)) from a preferred airport"
        case .thresholdCrossed:
            if let compared = candidate.comparedPrice {
                "price at or below the watchlist's threshold: ≈ \(compared.headline) at the ECB rate of \(candidate.exchangeRateDate)"
            } else {
                "price at or below the watchlist's threshold"
            }
        case .priceDrop: "price dropped \(percent(candidate.discountBasisPoints)) since the last check"
        default: "alert"
        }
    }

    static func percent(_ basisPoints: Int32) -> String {
        "\((Int(basisPoints.magnitude) + 50) / 100)%"
    }

    static func tierName(_ tier: Tier) -> String {
        switch tier {
        case .pro: "Pro"
        case .trial: "trial"
        default: "Free"
        }
    }

    /// "2026-03-08 14:05 America/New_York".
    static func localTime(_ instant: Date, in zone: TimeZone) -> String {
        let minute = QuietHoursWindow.minuteOfDay(instant, in: zone)
        return "\(QuietHoursWindow.localDay(instant, in: zone)) \(QuietHoursWindow.clock(minute)) \(zone.identifier)"
    }
}
