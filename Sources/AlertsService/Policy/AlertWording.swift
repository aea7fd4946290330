import FareLensMessages
import Foundation

/// What the user reads: the title, body and actions of an alert, with the
/// price in its currency's own symbol and minor units and the destination's
/// city name from search's airport directory.
///
/// "Tokyo deal dropped to $650" / "Save 35% vs average. Expires in 6 hours."
enum AlertWording {
    /// The content of `candidate`; `city` is the destination's city name (the code when unknown).
    static func content(for candidate: AlertCandidate, city: String, at now: Date) -> AlertContent {
        var content = AlertContent()
        content.actions = [.view, .muteRoute, .pause]
        let price = candidate.price.headline
        switch candidate.kind {
        case .exceptionalDeal:
            content.title = "\(city) deal dropped to \(price)"
            var body = "Save \(AlertPolicy.percent(candidate.discountBasisPoints)) vs average."
            if let approximate = approximately(candidate) { body += " " + approximate }
            if let expires = candidate.expiresAt { body += " " + expiry(expires, from: now) }
            content.body = body
        case .thresholdCrossed:
            content.title = "\(city) fell to \(price)"
            content.body = candidate.threshold.map { "At or below your \($0.headline) target." } ?? "At or below your target."
            if let compared = candidate.comparedPrice, let threshold = candidate.threshold {
                content.body = "≈ \(compared.headline) at the ECB rate of \(candidate.exchangeRateDate): at or below your \(threshold.headline) target."
            }
        case .priceDrop:
            content.title = "\(city) price dropped to \(price)"
            let was = candidate.previousPrice.map { " (was \($0.headline))" } ?? ""
            content.body = "Down \(AlertPolicy.percent(candidate.discountBasisPoints)) since the last check\(was)."
            if let approximate = approximately(candidate) { content.body += " " + approximate }
        case .trialEnding:
            content.title = "Your FareLens Pro trial ends tomorrow"
            content.body = "Then your account moves to Free: 5 watchlists, 3 alerts a day and the top 20 deals. Pro keeps them unlimited, from 6.99 USD a month."
            content.actions = [.view]
        default:
            content.title = "\(city): \(price)"
        }
        if candidate.simulated { content.body += (content.body.isEmpty ? "" : " ") + "Simulated market fare." }
        return content
    }

    /// The content of `candidate` when it is the same at every instant —
    /// all but an exceptional deal's, whose body says when it expires — so
    /// it can be written before the deciding transaction; nil otherwise.
    static func instantFreeContent(for candidate: AlertCandidate, city: String) -> AlertContent? {
        guard candidate.kind != .exceptionalDeal || candidate.expiresAt == nil else { return nil }
        return content(for: candidate, city: city, at: .distantPast)
    }

    /// "≈ €593.12 at the ECB rate of 2024-01-04." when the recipient reads prices in another currency.
    static func approximately(_ candidate: AlertCandidate) -> String? {
        guard let approximate = candidate.approximatePrice else { return nil }
        return "≈ \(approximate.headline) at the ECB rate of \(candidate.approximateRateDate)."
    }

    /// "Expires in 6 hours." / "Expires in 3 days." / "Expires within the hour."
    static func expiry(_ expires: Date, from now: Date) -> String {
        let hours = Int(expires.timeIntervalSince(now) / 3_600)
        if hours < 1 { return "Expires within the hour." }
        if hours < 48 { return "Expires in \(hours) hour\(hours == 1 ? "" : "s")." }
        return "Expires in \(hours / 24) days."
    }

    /// The digest of held and capped alerts: one line per alert, best first, at most `limit` named.
    static func digest(_ titles: [String], limit: Int = 5) -> AlertContent {
        var content = AlertContent()
        content.actions = [.view, .pause]
        content.title = titles.count == 1 ? "Your FareLens digest: 1 alert" : "Your FareLens digest: \(titles.count) alerts"
        var body = titles.prefix(limit).joined(separator: " · ")
        if titles.count > limit { body += " · and \(titles.count - limit) more" }
        content.body = body
        return content
    }
}
