import FareLensMessages
import Foundation

/// A silent push (docs/push.md § Silent pushes): `content-available: 1`
/// and only what changed on one watchlist — or on the account, when its
/// tier changed (with the preferred airports a downgrade removed) — for the
/// app to refresh in the background. No alert, sound or badge.
///
/// ```json
/// {"aps":{"content-available":1},"change":"price_changed","checked_at":"2026-06-10T16:00:00Z",
///  "lowest_price":{"currency":"USD","formatted":"$650","minor_units":65000},
///  "previous_price":{"currency":"USD","formatted":"$700","minor_units":70000},"watchlist_id":"w-…"}
/// ```
struct SilentPushPayload: Sendable, Equatable {
    /// "price_changed", "created", "updated", "deleted", "deactivated", "activated", "tier_changed".
    var change: String
    /// The watchlist changed; ``accountSubject`` for a change of the account.
    var watchlistID: String
    var lowestPrice: Money?
    var previousPrice: Money?
    /// A tier change: the new tier ("FREE", "PRO", "TRIAL") and the preferred airports it removed.
    var tier: String?
    var removedPreferredAirports: [String] = []

    /// What a change of the account is keyed by in place of a watchlist id (no watchlist id is this).
    static let accountSubject = "account"
    /// When the check ran (price changes) or the change happened.
    var at: Date

    /// The payload for a price change, or nil when no price is known.
    init?(_ event: PriceChanged) {
        guard event.check.hasLowestPrice else { return nil }
        change = "price_changed"
        watchlistID = event.watchlistID
        lowestPrice = event.check.lowestPrice
        previousPrice = event.hasPreviousPrice ? event.previousPrice : nil
        at = Date(unixMilliseconds: event.check.checkedAtUnixMs)
    }

    /// The payload for a watchlist's own change; nil for an announcement (nothing changed).
    init?(_ event: WatchlistChanged) {
        let names: [WatchlistChanged.Change: String] = [
            .created: "created", .updated: "updated", .deleted: "deleted", .deactivated: "deactivated", .activated: "activated",
        ]
        guard let name = names[event.change] else { return nil }
        change = name
        watchlistID = event.watchlist.watchlistID
        at = Date(unixMilliseconds: event.atUnixMs)
    }

    /// The payload for a tier change: the app refreshes its entitlements and, after a
    /// downgrade, learns which preferred airports were removed (issue #60).
    init(_ event: TierChanged) {
        change = "tier_changed"
        watchlistID = Self.accountSubject
        let names: [Tier: String] = [.trial: "TRIAL", .pro: "PRO", .free: "FREE"]
        tier = names[event.current] ?? "UNSPECIFIED"
        removedPreferredAirports = event.removedPreferredAirports
        at = Date(unixMilliseconds: event.atUnixMs)
    }

    func jsonBytes() -> [UInt8] {
        var writer = JSONText()
        writer.open()
        writer.key("aps")
        writer.open()
        writer.member("content-available", Int64(1))
        writer.close()
        writer.member("change", change)
        writer.member("checked_at", JSONText.rfc3339(at))
        if let lowestPrice { Self.price(lowestPrice, as: "lowest_price", into: &writer) }
        if let previousPrice { Self.price(previousPrice, as: "previous_price", into: &writer) }
        if let tier {
            writer.member("removed_preferred_airports", removedPreferredAirports)
            writer.member("tier", tier)
        } else {
            writer.member("watchlist_id", watchlistID)
        }
        writer.close()
        return writer.bytes
    }

    private static func price(_ money: Money, as key: String, into writer: inout JSONText) {
        writer.key(key)
        writer.open()
        writer.member("currency", money.currency)
        writer.member("formatted", money.headline)
        writer.member("minor_units", money.minorUnits)
        writer.close()
    }
}
