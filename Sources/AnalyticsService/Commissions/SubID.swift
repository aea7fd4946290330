import FareLensMessages

/// An attribution sub-id, `ios-fl-{dealId}-{watchlist or none}-{placement}-{abVariant}-{tier}`,
/// as search's `BookingOptionsBuilder` writes it: seven parts separated by
/// "-", the ids and variant made of letters, digits and "_" only, placement
/// and tier as lower-case words. Anything else does not parse (a commission
/// with it is recorded unmatched, never refused).
struct SubID: Equatable, Sendable {
    let dealID: String
    /// nil for "none".
    let watchlistID: String?
    let placement: BookingPlacement
    let abVariant: String
    let tier: Tier

    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 7, parts[0] == "ios", parts[1] == "fl",
              let placement = Dimensions.placement(word: parts[4]) else { return nil }
        let tiers: [Substring: Tier] = ["trial": .trial, "pro": .pro, "free": .free]
        guard let tier = tiers[parts[6]] else { return nil }
        for part in [parts[2], parts[3], parts[5]] {
            guard (1 ... 64).contains(part.count), part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
        }
        dealID = parts[2] == "none" ? "" : String(parts[2])
        watchlistID = parts[3] == "none" ? nil : String(parts[3])
        self.placement = placement
        abVariant = String(parts[5])
        self.tier = tier
    }
}
