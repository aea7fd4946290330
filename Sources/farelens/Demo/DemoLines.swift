import FareLensMessages
import Foundation

/// The demo's wording.
enum DemoLines {
    static func tierName(_ tier: Tier) -> String {
        switch tier {
        case .free: "Free"
        case .trial: "trial"
        case .pro: "Pro"
        default: "\(tier)"
        }
    }

    /// "LHR→BCN 2026-12-14, €21.00 (simulated) — score 84: 32% below the 90-day average"
    static func deal(_ deal: Deal) -> String {
        let reason = deal.score.reasons.first.map { ": \($0)" } ?? ""
        let price = Money(minorUnits: deal.price.minorUnits, currency: deal.price.currency).formatted
        return "\(deal.origin)→\(deal.destination) \(CalendarDate(deal.departureDate).map(\.description) ?? "?"), \(price) (simulated) — score \(deal.score.score)\(reason)"
    }

    /// "3 sent, 5 held, 1 deduped" in a fixed order; "none yet" when empty.
    static func decisions(_ counts: [AlertDecision: Int]) -> String {
        let order: [(AlertDecision, String)] = [
            (.sent, "sent"), (.held, "held"), (.deduped, "deduped"), (.capped, "capped"),
            (.muted, "muted"), (.stalePrice, "stale-price"), (.notAlertable, "not alertable"),
        ]
        let parts = order.compactMap { decision, name in counts[decision].map { "\($0) \(name)" } }
        return parts.isEmpty ? "none yet" : parts.joined(separator: ", ")
    }

    /// "buy or wait, LON→BCN departing 2027-01: likely to fall (high confidence); our forecasts were right
    /// 445 of 530 times (84%), always saying "rise" 59% (simulated)"
    static func forecast(route: String, month: String, _ response: FareForecastResponse) -> String {
        let outlook = response.outlook.words
        let confidence = response.confidence == .high ? " (high confidence)" : response.confidence == .medium ? " (medium confidence)" : ""
        let said = response.enoughData ? outlook + confidence + (response.withheld ? ", withheld: no better than always saying \"rise\"" : "") : "no forecast today"
        let accuracy = response.accuracy
        let measured = accuracy.forecasts == 0
            ? "no forecast scored yet"
            : "our forecasts \(response.accuracyIsRoutes ? "on this route" : "on all routes") were right \(accuracy.hits) of \(accuracy.forecasts) times "
                + "(\(Int((accuracy.hitRate * 100).rounded()))%), always saying \"rise\" \(Int((accuracy.baselineHitRate * 100).rounded()))%"
        return "demo: buy or wait, \(route) departing \(month): \(said); \(measured)\(response.simulated ? " (simulated)" : "")"
    }

    /// The commands to try; `now` is simulated time (the chart's month is the
    /// sweep's 21-days-ahead departures'). They name `socket` unless it is
    /// where farelensctl looks by default.
    static func hints(travellers: [SeededTraveller], first: SeededTraveller, now: Date, socket: String) -> String {
        let free = travellers.first { $0.tierName == "Free" } ?? first
        let ahead = CalendarDate.of(now, in: .gmt).adding(days: 21)
        let monthAhead = String(ahead.description.prefix(7))
        let isDefault = URL(fileURLWithPath: socket).standardizedFileURL.path == URL(fileURLWithPath: DemoSetup.socket).standardizedFileURL.path
        let where_ = isDefault ? "the demo listens on \(DemoSetup.socket), farelensctl's default" : "the demo listens on \(socket)"
        let ctl = isDefault ? "swift run farelensctl" : "swift run farelensctl --socket \(socket)"
        return """
            demo: try, in another terminal (\(where_)):
            demo:   \(ctl) deals --user \(first.userID)             # \(first.name)'s feed: their deals, in queue order
            demo:   \(ctl) alerts history --user \(free.userID)     # \(free.name)'s alert decisions and why
            demo:   \(ctl) history LON BCN --month \(monthAhead)               # a price chart of a watched route
            demo:   \(ctl) routes forecast LON BCN --month \(monthAhead)       # buy or wait, and how often such forecasts were right
            demo:   \(ctl) analytics report alerts --json
            """
    }
}
