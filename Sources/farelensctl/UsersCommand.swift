import ArgumentParser
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation

/// `farelensctl users create|show|list|tier|delete`: accounts in the subscription service.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Create, look up, list, re-tier and delete user accounts (the subscription service).",
        subcommands: [Create.self, Show.self, List.self, SetTier.self, SetCurrency.self, Delete.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user on a 14-day trial with Pro's entitlements.",
            discussion: "Example: farelensctl users create --email a@example.com --time-zone America/New_York --home-airport JFK --json"
        )
        @Option(name: .long, help: "The user's email address.") var email: String
        @Option(name: .long, help: "IANA time zone, e.g. America/New_York; schedules and quiet hours use it.") var timeZone: String
        @Option(name: .long, help: "IATA code of the home airport.") var homeAirport: String?
        @Option(name: .long, parsing: .upToNextOption, help: "Preferred airports as CODE=WEIGHT (weights sum to 1), e.g. JFK=0.7 EWR=0.3.")
        var preferred: [String] = []
        @OptionGroup var options: ConnectionOptions

        /// A malformed --preferred is refused before connecting.
        func validate() throws { _ = try preferred.map(Self.airport) }

        func run() async throws {
            var request = CreateUserRequest()
            request.email = email
            request.timeZone = timeZone
            request.homeAirport = homeAirport ?? ""
            request.preferredAirports = try preferred.map(Self.airport)
            let response = try await CtlRun.request(options, request)
            try UserOutput.print(response.user, response.entitlements, json: options.json)
        }

        /// `CODE` or `CODE=WEIGHT`; an empty code or weight is refused, not read as a weight of 1.
        static func airport(_ text: String) throws -> PreferredAirport {
            let parts = text.split(separator: "=", omittingEmptySubsequences: false)
            guard (1 ... 2).contains(parts.count), !parts[0].isEmpty else { throw ValidationError("--preferred '\(text)': expected CODE or CODE=WEIGHT, e.g. JFK=0.5") }
            var airport = PreferredAirport()
            airport.code = String(parts[0])
            if parts.count == 2 {
                guard let weight = Double(parts[1]), weight.isFinite else { throw ValidationError("--preferred '\(text)': the weight must be a number, e.g. JFK=0.5") }
                airport.weight = weight
            }
            return airport
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a user, by id or by email, with their tier and entitlements.",
            discussion: "Example: farelensctl users show u-0f3a9c2b7d1e4a55 --json"
        )
        @Argument(help: "A user id (u-…) or an email address.") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = GetUserRequest()
            if user.contains("@") { request.email = user } else { request.userID = user }
            let response = try await CtlRun.request(options, request)
            try UserOutput.print(response.user, response.entitlements, json: options.json)
        }
    }

    /// `users list`: every user, a page at a time, in user-id order.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List users in user-id order, a page at a time (or every page with --all).",
            discussion: "Example: farelensctl users list --page-size 50 --page-token <token from the previous page>"
        )
        @Option(name: .long, help: "Users per page, 1–1000 (the service's default is 100).") var pageSize: Int?
        @Option(name: .long, help: "Where to continue: the token the previous page printed.") var pageToken: String?
        @Flag(name: .long, help: "Follow the pages to the end and print every user.") var all = false
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            if let pageSize, !(1 ... 1000).contains(pageSize) {
                throw ValidationError("--page-size must be between 1 and 1000, not \(pageSize)")
            }
        }

        func run() async throws {
            let page = try await fetch()
            let rows = page.users.map(UserOutput.ListRow.init)
            if options.json {
                try CtlRun.printJSON(UserOutput.ListJSON(users: rows, total: page.total, nextPageToken: page.nextPageToken))
                return
            }
            var table = TextTable("ID", "EMAIL", "TIER", "TIME ZONE", "TRIAL ENDS / PAID UNTIL")
            for (row, user) in zip(rows, page.users) { table.add(row.id, row.email, UserOutput.tierText(user), row.timeZone, UserOutput.periodText(user)) }
            Swift.print(table.rendered)
            Swift.print("\(rows.count) of \(page.total) users")
            if !page.nextPageToken.isEmpty { Swift.print("next page: --page-token \(page.nextPageToken)") }
        }

        /// One page, or with `--all` every page from `--page-token` on (the
        /// answer then has every user and no next page token).
        func fetch() async throws -> ListUsersResponse {
            var request = ListUsersRequest()
            request.pageSize = Int32(clamping: pageSize ?? 0)
            request.pageToken = pageToken ?? ""
            guard all else { return try await CtlRun.request(options, request) }
            return try await CtlRun.session(options) { [request] session in
                var result = try await session.request(request)
                var seen: Set<String> = []
                while !result.nextPageToken.isEmpty {
                    guard seen.insert(result.nextPageToken).inserted else { throw CtlFailure(code: "repeated-page-token", "users list --all: the service repeated page token \(result.nextPageToken)") }
                    var next = request
                    next.pageToken = result.nextPageToken
                    let page = try await session.request(next)
                    result.users += page.users
                    result.total = page.total
                    result.nextPageToken = page.nextPageToken
                }
                return result
            }
        }
    }

    /// `users tier`: an operator sets a user's tier.
    struct SetTier: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tier",
            abstract: "Set a user's tier as an operator: free, trial (a new 14-day trial from now), pro-monthly or pro-annual.",
            discussion: "Example: farelensctl users tier u-0f3a9c2b7d1e4a55 pro-annual --json"
        )
        @Argument(help: "The user id (u-…).") var user: String
        @Argument(help: "free, trial, pro-monthly or pro-annual.") var tier: String
        @OptionGroup var options: ConnectionOptions

        func validate() throws { _ = try Self.choice(tier) }

        func run() async throws {
            var request = SetTierRequest()
            request.userID = user
            (request.tier, request.product) = try Self.choice(tier)
            var entitlementsRequest = GetEntitlementsRequest()
            entitlementsRequest.userID = user
            let (response, entitlements) = try await CtlRun.session(options) { [request, entitlementsRequest] session in
                (try await session.request(request), try await session.request(entitlementsRequest).entitlements)
            }
            try UserOutput.print(response.user, entitlements, json: options.json, unchanged: response.unchanged)
        }

        /// The tier and product a command-line word names.
        static func choice(_ word: String) throws -> (Tier, SubscriptionProduct) {
            switch word.lowercased() {
            case "free": (.free, .unspecified)
            case "trial": (.trial, .unspecified)
            case "pro-monthly": (.pro, .monthly)
            case "pro-annual": (.pro, .annual)
            default: throw ValidationError("the tier must be free, trial, pro-monthly or pro-annual, not '\(word)'")
            }
        }
    }

    /// `users currency`: the currency a user's prices are also shown in (issue #60).
    struct SetCurrency: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "currency",
            abstract: "Set the currency a user's prices are also shown in (≈, at the ECB rate), or none.",
            discussion: "Example: farelensctl users currency u-0f3a9c2b7d1e4a55 EUR --json   (none clears it)"
        )
        @Argument(help: "The user id (u-…).") var user: String
        @Argument(help: "An ISO 4217 code, e.g. EUR, or none.") var currency: String
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            guard currency.lowercased() == "none" || Money.isCurrencyCode(currency.uppercased()) else {
                throw ValidationError("'\(currency)' is not an ISO 4217 currency code (e.g. EUR), or none")
            }
        }

        func run() async throws {
            var request = UpdateUserRequest()
            request.userID = user
            request.currency = currency.lowercased() == "none" ? "" : currency.uppercased()
            var entitlementsRequest = GetEntitlementsRequest()
            entitlementsRequest.userID = user
            let (response, entitlements) = try await CtlRun.session(options) { [request, entitlementsRequest] session in
                (try await session.request(request), try await session.request(entitlementsRequest).entitlements)
            }
            try UserOutput.print(response.user, entitlements, json: options.json)
        }
    }

    /// `users delete`: deletes a user; every service erases their data.
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user and their purchase ledger; every other service erases that user's data.",
            discussion: "Example: farelensctl users delete u-0f3a9c2b7d1e4a55"
        )
        @Argument(help: "The user id (u-…).") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = DeleteUserRequest()
            request.userID = user
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(["deleted": response.userID])
            } else {
                Swift.print("deleted \(response.userID)")
            }
        }
    }
}

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
