import FareLensMessages
import Foundation

extension AlertRow {
    /// The recorded form of the policy's verdict on `candidate`.
    init(_ verdict: AlertPolicy.Verdict, of candidate: AlertCandidate, recipient: AlertRecipient, content: AlertContent, id: String, at now: Date) {
        let waitsForDigest = verdict.decision == .held || verdict.decision == .capped
        self.init(
            alertID: id, userID: candidate.userID, kind: candidate.kind.rawValue, decision: verdict.decision.rawValue, reason: verdict.reason,
            origin: candidate.origin, destination: candidate.destination, dealID: candidate.dealID, watchlistID: candidate.watchlistID,
            currency: candidate.price.currency, priceMinorUnits: candidate.price.minorUnits, dealScore: Int(candidate.dealScore),
            queueScore: candidate.queueScore, title: content.title, body: content.body,
            actions: AlertRow.column(content.actions),
            decidedAtUnixMs: now.unixMilliseconds, localDay: QuietHoursWindow.localDay(now, in: recipient.zone).description,
            quietException: verdict.quietException,
            deliveryState: (verdict.decision == .sent ? DeliveryState.pending : .notQueued).rawValue, deliveryError: "", attempts: 0,
            deliveredAtUnixMs: 0,
            digestDueAtUnixMs: waitsForDigest ? recipient.quietHours.nextEnd(after: now, in: recipient.zone).unixMilliseconds : 0,
            digestAlertID: "", departureDate: candidate.departureDate?.description ?? "", returnDate: candidate.returnDate?.description ?? "",
            cabin: candidate.cabin.rawValue, tier: recipient.tier.rawValue, simulated: candidate.simulated,
            expiresAtUnixMs: candidate.expiresAt?.unixMilliseconds ?? 0)
    }
}
