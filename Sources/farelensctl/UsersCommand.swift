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
