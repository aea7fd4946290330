import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl users create|show`: accounts in the subscription service.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Create and look up user accounts (the subscription service).",
        subcommands: [Create.self, Show.self]
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

        func run() async throws {
            var request = CreateUserRequest()
            request.email = email
            request.timeZone = timeZone
            request.homeAirport = homeAirport ?? ""
            request.preferredAirports = try preferred.map(Self.airport)
            let response = try await CtlRun.request(options, request)
            try UserOutput.print(response.user, response.entitlements, json: options.json)
        }

        static func airport(_ text: String) throws -> PreferredAirport {
            let parts = text.split(separator: "=")
            var airport = PreferredAirport()
            airport.code = String(parts[0])
            if parts.count == 2 {
                guard let weight = Double(parts[1]) else { throw ValidationError("--preferred \(text): the weight must be a number") }
                airport.weight = weight
            } else if parts.count > 2 {
                throw ValidationError("--preferred \(text): expected CODE or CODE=WEIGHT")
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
}

/// One user as `users` commands print it.
enum UserOutput {
    struct AirportWeight: Encodable {
        let code: String
        let weight: Double
    }

    struct Row: Encodable {
        let id: String
        let email: String
        let timeZone: String
        let homeAirport: String
        let preferredAirports: [AirportWeight]
        let tier: String
        let trialEnds: String
        let activeWatchlists: Int?
        let immediateAlertsPerDay: Int
        let visibleDeals: Int?
        let ads: Bool
    }

    static func tierName(_ tier: Tier) -> String {
        switch tier {
        case .trial: "trial"
        case .pro: "pro"
        case .free: "free"
        default: "unspecified"
        }
    }

    static func print(_ user: User, _ entitlements: Entitlements, json: Bool) throws {
        let trialEnds = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(user.trialEndsAtUnixMs) / 1000))
        let row = Row(
            id: user.userID, email: user.email, timeZone: user.timeZone, homeAirport: user.homeAirport,
            preferredAirports: user.preferredAirports.map { AirportWeight(code: $0.code, weight: $0.weight) },
            tier: tierName(user.tier), trialEnds: trialEnds,
            activeWatchlists: entitlements.hasActiveWatchlists ? Int(entitlements.activeWatchlists) : nil,
            immediateAlertsPerDay: Int(entitlements.immediateAlertsPerDay),
            visibleDeals: entitlements.hasVisibleDeals ? Int(entitlements.visibleDeals) : nil, ads: entitlements.ads
        )
        if json {
            try CtlRun.printJSON(row)
            return
        }
        var table = TextTable("ID", "EMAIL", "TIME ZONE", "HOME", "PREFERRED", "TIER", "TRIAL ENDS", "WATCHLISTS", "ALERTS/DAY", "DEALS", "ADS")
        table.add(
            row.id, row.email, row.timeZone, row.homeAirport.isEmpty ? "-" : row.homeAirport,
            user.preferredAirports.map { "\($0.code)=\($0.weight)" }.joined(separator: " "),
            row.tier, row.trialEnds, row.activeWatchlists.map(String.init) ?? "unlimited", String(row.immediateAlertsPerDay),
            row.visibleDeals.map(String.init) ?? "all", row.ads ? "yes" : "no"
        )
        Swift.print(table.rendered)
    }
}
