import ArgumentParser
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation

/// One user as `users` commands print it.
enum UserOutput {
    /// A preferred airport and its weight.
    struct AirportWeight: Encodable {
        let code: String
        let weight: Double
    }

    /// `users create|show|tier`: the user with their entitlements. The paid
    /// fields are left out (not null) when they do not apply.
    struct Row: Encodable {
        let id: String
        let email: String
        let timeZone: String
        let homeAirport: String
        let preferredAirports: [AirportWeight]
        let tier: String
        /// While on trial only (a user moved to Free or Pro kept showing it).
        let trialEnds: String?
        let activeWatchlists: Int?
        let immediateAlertsPerDay: Int
        let visibleDeals: Int?
        let ads: Bool
        let product: String?
        let paidUntil: String?
        let autoRenew: Bool?
        let graceUntil: String?
        /// The display currency ("≈" prices), nil when none is chosen.
        var currency: String? = nil
        /// StoreKit's appAccountToken for this user (docs/payments.md): what the App Store's notifications name.
        var appAccountToken: String? = nil
    }

    /// `users list`: one user without entitlements (the list does not carry them).
    struct ListRow: Encodable {
        let id: String
        let email: String
        let tier: String
        let product: String?
        let timeZone: String
        /// While on trial only.
        let trialEnds: String?
        let paidUntil: String?
        let autoRenew: Bool?
        let graceUntil: String?

        init(_ user: User) {
            let paid = Paid(user)
            id = user.userID
            email = user.email
            tier = UserOutput.tierName(user.tier)
            product = paid.product
            timeZone = user.timeZone
            trialEnds = UserOutput.trialEnds(user)
            paidUntil = paid.until
            autoRenew = paid.autoRenew
            graceUntil = paid.graceUntil
        }
    }

    /// `users list --json`.
    struct ListJSON: Encodable {
        let users: [ListRow]
        let total: Int64
        let nextPageToken: String
    }

    /// A user's paid period; nil fields for anyone not Pro (and `until` nil
    /// for an operator's Pro, which has no paid period).
    struct Paid {
        let product: String?
        let until: String?
        let autoRenew: Bool?
        let graceUntil: String?

        init(_ user: User) {
            let pro = user.tier == .pro
            product = pro ? UserOutput.productName(user.product) : nil
            until = pro && user.paidUntilUnixMs > 0 ? UserOutput.instant(user.paidUntilUnixMs) : nil
            autoRenew = pro && user.paidUntilUnixMs > 0 ? user.autoRenew : nil
            graceUntil = pro && user.graceUntilUnixMs > 0 ? UserOutput.instant(user.graceUntilUnixMs) : nil
        }
    }

    /// A JSON object that is `base`'s keys plus one more boolean key.
    struct WithFlag<Base: Encodable>: Encodable {
        let base: Base
        let name: String
        let value: Bool

        func encode(to encoder: any Encoder) throws {
            try base.encode(to: encoder)
            var container = encoder.container(keyedBy: FlagKey.self)
            try container.encode(value, forKey: FlagKey(stringValue: name))
        }
    }

    /// A coding key made of any string.
    struct FlagKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func tierName(_ tier: Tier) -> String {
        switch tier {
        case .trial: "trial"
        case .pro: "pro"
        case .free: "free"
        default: "unspecified"
        }
    }

    static func productName(_ product: SubscriptionProduct) -> String? {
        switch product {
        case .monthly: "monthly"
        case .annual: "annual"
        default: nil
        }
    }

    /// Unix epoch milliseconds as ISO 8601 (UTC, whole seconds).
    static func instant(_ unixMs: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(unixMs) / 1000))
    }

    /// When the trial ends, for a user on trial; nil for any other tier
    /// (the service keeps when a past trial ended, which is no longer news).
    static func trialEnds(_ user: User) -> String? {
        user.tier == .trial ? instant(user.trialEndsAtUnixMs) : nil
    }

    /// The tier for a table: "pro (annual)", "trial", "free".
    static func tierText(_ user: User) -> String {
        let name = tierName(user.tier)
        guard let product = Paid(user).product else { return name }
        return "\(name) (\(product))"
    }

    /// When the trial ends (trial), the paid period ends (Pro), or "-".
    static func periodText(_ user: User) -> String {
        switch user.tier {
        case .trial: instant(user.trialEndsAtUnixMs)
        case .pro: paidText(user)
        default: "-"
        }
    }

    /// A Pro user's paid period: "2027-01-01T00:00:00Z (cancelled; grace until …)",
    /// "(set by operator, no paid period)", or "-".
    static func paidText(_ user: User) -> String {
        let paid = Paid(user)
        var notes: [String] = []
        if paid.autoRenew == false { notes.append("cancelled") }
        if let grace = paid.graceUntil { notes.append("grace until \(grace)") }
        if paid.until == nil, user.tier == .pro, user.setByOperator { notes.insert("set by operator, no paid period", at: 0) }
        let text = paid.until ?? (notes.isEmpty ? "-" : "")
        guard !notes.isEmpty else { return text }
        return (text.isEmpty ? "" : text + " ") + "(" + notes.joined(separator: "; ") + ")"
    }

    static func row(_ user: User, _ entitlements: Entitlements) -> Row {
        let paid = Paid(user)
        return Row(
            id: user.userID, email: user.email, timeZone: user.timeZone, homeAirport: user.homeAirport,
            preferredAirports: user.preferredAirports.map { AirportWeight(code: $0.code, weight: $0.weight) },
            tier: tierName(user.tier), trialEnds: trialEnds(user),
            activeWatchlists: entitlements.hasActiveWatchlists ? Int(entitlements.activeWatchlists) : nil,
            immediateAlertsPerDay: Int(entitlements.immediateAlertsPerDay),
            visibleDeals: entitlements.hasVisibleDeals ? Int(entitlements.visibleDeals) : nil, ads: entitlements.ads,
            product: paid.product, paidUntil: paid.until, autoRenew: paid.autoRenew, graceUntil: paid.graceUntil,
            currency: user.currency.isEmpty ? nil : user.currency, appAccountToken: user.appAccountToken.isEmpty ? nil : user.appAccountToken
        )
    }

    /// Prints the user; with `unchanged` (`users tier`) also whether the tier stayed as it was.
    static func print(_ user: User, _ entitlements: Entitlements, json: Bool, unchanged: Bool? = nil) throws {
        let row = row(user, entitlements)
        if json {
            if let unchanged {
                try CtlRun.printJSON(WithFlag(base: row, name: "unchanged", value: unchanged))
            } else {
                try CtlRun.printJSON(row)
            }
            return
        }
        var table = TextTable("ID", "EMAIL", "TIME ZONE", "HOME", "PREFERRED", "TIER", "TRIAL ENDS", "PAID UNTIL", "WATCHLISTS", "ALERTS/DAY", "DEALS", "ADS")
        table.add(
            row.id, row.email, row.timeZone, row.homeAirport.isEmpty ? "-" : row.homeAirport,
            user.preferredAirports.map { "\($0.code)=\($0.weight)" }.joined(separator: " "),
            tierText(user), row.trialEnds ?? "-", paidText(user), row.activeWatchlists.map(String.init) ?? "unlimited", String(row.immediateAlertsPerDay),
            row.visibleDeals.map(String.init) ?? "all", row.ads ? "yes" : "no"
        )
        Swift.print(table.rendered)
        if let currency = row.currency { Swift.print("prices also shown in \(currency)") }
        if let token = row.appAccountToken { Swift.print("App Store appAccountToken \(token)") }
        if unchanged == true { Swift.print("tier unchanged") }
    }
}
