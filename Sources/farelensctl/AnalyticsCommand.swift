import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl analytics report|opt-out|opt-in|delete`: the analytics service's reports and privacy controls.
struct AnalyticsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analytics",
        abstract: "Analytics reports (read from daily roll-ups), and a user's opt-out and data deletion.",
        subcommands: [Report.self, OptOut.self, OptIn.self, Delete.self]
    )

    /// `analytics report NAME`.
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One report over UTC days, inclusive: searches, quota, alerts, clicks, conversions or trials.",
            discussion: """
            searches     searches and cache hits, by purpose
            quota        provider calls, successful ones, monthly limit, by provider
            alerts       alerts and how many were opened, by decision
            clicks       deals viewed and affiliate clicks, by placement
            conversions  affiliate clicks, bookings (on their booking day) and
                         commission, by placement
            trials       trials started and those that became Pro, by start week

            Without --from and --to: the 30 days to today (UTC).
            Example:
              farelensctl analytics report searches --from 2026-09-01 --daily
            """
        )
        @Argument(help: "searches, quota, alerts, clicks, conversions or trials.") var name: String
        @Option(name: .long, help: "First day, YYYY-MM-DD (UTC). Default: 29 days before --to.") var from: String?
        @Option(name: .long, help: "Last day, YYYY-MM-DD (UTC), inclusive. Default: today.") var to: String?
        @Flag(name: .long, help: "One row per day and dimension.") var daily = false
        @OptionGroup var options: ConnectionOptions

        func validate() throws { _ = try makeRequest() }

        func run() async throws {
            let response = try await CtlRun.request(options, try makeRequest())
            if options.json {
                try CtlRun.printJSON(AnalyticsOutput.ReportJSON(response))
            } else {
                Swift.print(AnalyticsOutput.table(response))
            }
        }

        func makeRequest() throws -> AnalyticsReportRequest {
            var request = AnalyticsReportRequest()
            guard let kind = AnalyticsOutput.kinds.first(where: { $0.name == name.lowercased() })?.kind else {
                throw ValidationError("the report must be searches, quota, alerts, clicks, conversions or trials, not '\(name)'")
            }
            request.kind = kind
            if let from { request.fromDate = try Self.day(from, "--from") }
            if let to { request.toDate = try Self.day(to, "--to") }
            if let from, let to, let first = CalendarDate(iso: from), let last = CalendarDate(iso: to), last < first {
                throw ValidationError("--to \(to) is before --from \(from)")
            }
            request.daily = daily
            return request
        }

        static func day(_ text: String, _ option: String) throws -> LocalDate {
            guard let date = CalendarDate(iso: text) else { throw ValidationError("\(option) must be a day as YYYY-MM-DD, not '\(text)'") }
            return date.message
        }
    }

    struct OptOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "opt-out",
            abstract: "Stop recording a user's analytics (what was recorded stays; see delete).",
            discussion: "Example: farelensctl analytics opt-out --user u-0f3a9c2b7d1e4a55"
        )
        @Option(name: .long, help: "The user id (u-…).") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws { try await AnalyticsCommand.setOptOut(user, true, options) }
    }

    struct OptIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "opt-in",
            abstract: "Record a user's analytics again after an opt-out.",
            discussion: "Example: farelensctl analytics opt-in --user u-0f3a9c2b7d1e4a55"
        )
        @Option(name: .long, help: "The user id (u-…).") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws { try await AnalyticsCommand.setOptOut(user, false, options) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user's analytics data (raw events, trial start, alerts seen) under every key version; roll-ups hold no user and stay.",
            discussion: "Example: farelensctl analytics delete --user u-0f3a9c2b7d1e4a55 --json"
        )
        @Option(name: .long, help: "The user id (u-…).") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = DeleteUserDataRequest()
            request.userID = user
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(DeletedJSON(userId: user, eventsDeleted: response.eventsDeleted))
            } else {
                Swift.print("deleted \(response.eventsDeleted) analytics events of \(user)")
            }
        }
    }

    struct OptOutJSON: Encodable {
        let userId: String
        let optedOut: Bool
    }

    struct DeletedJSON: Encodable {
        let userId: String
        let eventsDeleted: Int64
    }

    static func setOptOut(_ user: String, _ optOut: Bool, _ options: ConnectionOptions) async throws {
        var request = SetAnalyticsOptOutRequest()
        request.userID = user
        request.optOut = optOut
        let response = try await CtlRun.request(options, request)
        if options.json {
            try CtlRun.printJSON(OptOutJSON(userId: user, optedOut: response.optedOut))
        } else {
            Swift.print(response.optedOut ? "\(user) is opted out of analytics" : "\(user) is recorded by analytics")
        }
    }
}
