import FareLensMessages
import Foundation

/// The words reports use for enum values (lower case, as the sub-id writes
/// placements), and the UTC days and ISO weeks roll-ups are keyed by.
enum Dimensions {
    static func purpose(_ purpose: SearchPurpose) -> String {
        switch purpose {
        case .userSearch: "user_search"
        case .proWatchlist: "pro_watchlist"
        case .freeWatchlist: "free_watchlist"
        case .backgroundSweep: "background_sweep"
        default: "unspecified"
        }
    }

    /// The decision's one name (``FareLensMessages/AlertDecision/name``,
    /// as metrics and farelensctl write it); "unspecified" for an unset one.
    static func decision(_ decision: AlertDecision) -> String {
        decision.name ?? "unspecified"
    }

    static let placements: [(BookingPlacement, String)] = [
        (.dealcard, "dealcard"), (.detail, "detail"), (.sheet, "sheet"), (.widget, "widget"), (.alert, "alert"),
    ]

    static func placement(_ placement: BookingPlacement) -> String {
        placements.first { $0.0 == placement }?.1 ?? "unspecified"
    }

    static func placement(word: some StringProtocol) -> BookingPlacement? {
        placements.first { $0.1 == word.lowercased() }?.0
    }

    static func clientKind(_ kind: ClientEventKind) -> String {
        switch kind {
        case .appOpened: "app_opened"
        case .dealViewed: "deal_viewed"
        case .affiliateClicked: "affiliate_clicked"
        case .alertOpened: "alert_opened"
        case .searchFailed: "search_failed"
        case .paywallViewed: "paywall_viewed"
        default: "unspecified"
        }
    }

    /// The UTC day of an instant, days since 1970-01-01.
    static func day(unixMs: Int64) -> Int {
        Int((Double(unixMs) / 86_400_000).rounded(.down))
    }

    /// The ISO 8601 week of a UTC day, e.g. "2026-W09" (weeks start on
    /// Monday; week 1 holds the year's first Thursday).
    static func isoWeek(day: Int) -> String {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let date = Date(timeIntervalSince1970: Double(day) * 86_400)
        let parts = calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: date)
        return String(format: "%04d-W%02d", parts.yearForWeekOfYear ?? 0, parts.weekOfYear ?? 0)
    }
}
