import ArgumentParser
import FareLensMessages
import Foundation
import SwiftProtobuf

/// `farelensctl alerts history|tail|mute|unmute|pause|resume|settings|devices|replay|set-aside|retry-set-aside`: the alerts service.
struct AlertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alerts",
        abstract: "Alert decisions and why, live alerts, mutes, pauses, push devices, dead-letter replay and set-aside events (the alerts service).",
        subcommands: [
            History.self, Tail.self, Mute.self, Unmute.self, Pause.self, Resume.self, Settings.self, Devices.self, Replay.self, SetAside.self, RetrySetAside.self,
        ]
    )

    /// `alerts history`: every decision with its reason.
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A user's alert decisions, newest first, each with its reason and delivery state: why did (or didn't) I get this?",
            discussion: "Example: farelensctl alerts history --user u-0f3a9c2b7d1e4a55 --decision held --limit 20"
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @Option(name: .long, help: ArgumentHelp("Only this decision: \(AlertDecision.names).", valueName: "decision")) var decision: String?
        @Option(name: .long, help: "At most this many (1–500).") var limit: Int = 50
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            if let decision { _ = try AlertsCommand.decision(decision) }
            guard (1...500).contains(limit) else { throw ValidationError("--limit must be 1 to 500") }
        }

        func run() async throws {
            var request = AlertHistoryRequest()
            request.userID = user
            request.limit = Int32(limit)
            if let decision { request.decision = try AlertsCommand.decision(decision) }
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(message: response)
                return
            }
            guard !response.alerts.isEmpty else {
                print("No alert decisions for \(user).")
                return
            }
            print(AlertsCommand.table(response.alerts))
        }
    }

    /// `alerts tail`: decisions and deliveries as they happen.
    struct Tail: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print alert decisions, deliveries and delivery failures as they happen, until interrupted.",
            discussion: "The same best-effort watch as `events tail`, on the alerts topics. Example: farelensctl alerts tail --count 10 --json"
        )
        @Option(name: .long, help: "Stop after this many events.") var count: Int?
        @Option(name: .long, help: "Stop after this many seconds.") var seconds: Int?
        @OptionGroup var options: ConnectionOptions

        /// Checked here, as `events tail` checks them, so a refusal shows this command's usage.
        func validate() throws { try EventsCommand.Tail.check(count: count, seconds: seconds) }

        func run() async throws {
            var arguments = [AlertDecided.topic.name, AlertDelivered.topic.name, AlertDeliveryFailed.topic.name]
            if let count { arguments += ["--count=\(count)"] }
            if let seconds { arguments += ["--seconds=\(seconds)"] }
            if let socket = options.socket { arguments += ["--socket", socket] }
            arguments += ["--timeout-ms", String(options.timeoutMs)]
            if options.json { arguments.append("--json") }
            let tail = try EventsCommand.Tail.parse(arguments)
            try await tail.run()
        }
    }

    /// `alerts mute`: one route, 30 days by default.
    struct Mute: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mute alerts on one route (this direction) for a user; extends a shorter mute.",
            discussion: "Example: farelensctl alerts mute --user u-0f3a9c2b7d1e4a55 JFK NRT --days 30"
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @Argument(help: "Origin IATA code.") var origin: String
        @Argument(help: "Destination IATA code.") var destination: String
        @Option(name: .long, help: "Days, 1–365.") var days: Int = 30
        @OptionGroup var options: ConnectionOptions

        func validate() throws { guard (1...365).contains(days) else { throw ValidationError("--days must be 1 to 365") } }

        func run() async throws {
            var request = MuteRouteRequest()
            request.userID = user
            request.origin = origin
            request.destination = destination
            request.days = Int32(days)
            let response = try await CtlRun.request(options, request)
            if options.json { try CtlRun.printJSON(message: response) } else { print("Muted \(origin.uppercased())→\(destination.uppercased()) until \(AlertsCommand.time(response.mutedUntilUnixMs)).") }
        }
    }

    /// `alerts unmute`: undo a mute.
    struct Unmute: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Undo a route mute.",
            discussion: "Example: farelensctl alerts unmute --user u-0f3a9c2b7d1e4a55 JFK NRT"
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @Argument(help: "Origin IATA code.") var origin: String
        @Argument(help: "Destination IATA code.") var destination: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = UnmuteRouteRequest()
            request.userID = user
            request.origin = origin
            request.destination = destination
            let response = try await CtlRun.request(options, request)
            if options.json { print(#"{"was_muted":\#(response.wasMuted)}"#) } else { print(response.wasMuted ? "Unmuted." : "The route was not muted.") }
        }
    }

    /// `alerts pause`: all alerts, 24 hours by default.
    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pause all of a user's alerts; extends a shorter pause.",
            discussion: "Example: farelensctl alerts pause --user u-0f3a9c2b7d1e4a55 --hours 24"
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @Option(name: .long, help: "Hours, 1–720.") var hours: Int = 24
        @OptionGroup var options: ConnectionOptions

        func validate() throws { guard (1...720).contains(hours) else { throw ValidationError("--hours must be 1 to 720") } }

        func run() async throws {
            var request = PauseAlertsRequest()
            request.userID = user
            request.hours = Int32(hours)
            let response = try await CtlRun.request(options, request)
            if options.json { try CtlRun.printJSON(message: response) } else { print("Alerts paused until \(AlertsCommand.time(response.pausedUntilUnixMs)).") }
        }
    }

    /// `alerts resume`: undo a pause.
    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Undo a pause.",
            discussion: "Example: farelensctl alerts resume --user u-0f3a9c2b7d1e4a55"
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = ResumeAlertsRequest()
            request.userID = user
            let response = try await CtlRun.request(options, request)
            if options.json { print(#"{"was_paused":\#(response.wasPaused)}"#) } else { print(response.wasPaused ? "Alerts resumed." : "Alerts were not paused.") }
        }
    }

    /// `alerts settings`: mutes and pause in force.
    struct Settings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A user's muted routes and pause in force now.",
            discussion: "Example: farelensctl alerts settings --user u-0f3a9c2b7d1e4a55"
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            var request = AlertSettingsRequest()
            request.userID = user
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(message: response)
                return
            }
            print(response.pausedUntilUnixMs > 0 ? "Paused until \(AlertsCommand.time(response.pausedUntilUnixMs))." : "Not paused.")
            for route in response.mutedRoutes { print("Muted \(route.origin)→\(route.destination) until \(AlertsCommand.time(route.mutedUntilUnixMs))") }
        }
    }

    /// `alerts devices`: where a user's pushes go.
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A user's phones registered for push, with each one's last push outcome; --add or --remove one (a support desk's test phone).",
            discussion: """
                Example: farelensctl alerts devices --user u-0f3a9c2b7d1e4a55 --json
                         farelensctl alerts devices --user u-0f3a9c2b7d1e4a55 --add 3f9a…(64 hex digits) --sandbox
                The app registers its own devices through the API (PUT /v1/me/devices/{token}; docs/push.md).
                """
        )
        @Option(name: .long, help: "The user's id (u-…).") var user: String
        @Option(name: .long, help: ArgumentHelp("Register this APNs device token (64 hexadecimal digits) for the user.", valueName: "token")) var add: String?
        @Option(name: .long, help: ArgumentHelp("Remove this device token from the user.", valueName: "token")) var remove: String?
        @Flag(name: .long, help: "With --add: a development build's token (APNs sandbox).") var sandbox = false
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            guard add == nil || remove == nil else { throw ValidationError("give --add or --remove, not both") }
            guard !sandbox || add != nil else { throw ValidationError("--sandbox goes with --add") }
        }

        func run() async throws {
            if let add {
                var request = RegisterDeviceRequest()
                request.userID = user
                request.device.token = add
                request.device.environment = sandbox ? .sandbox : .production
                let response = try await CtlRun.request(options, request)
                if options.json { try CtlRun.printJSON(message: response) } else {
                    print(response.created ? "Registered \(AlertsCommand.device(response.device.token)) for \(user)." : "Updated \(AlertsCommand.device(response.device.token)).")
                }
                return
            }
            if let remove {
                var request = UnregisterDeviceRequest()
                request.userID = user
                request.token = remove
                let response = try await CtlRun.request(options, request)
                if options.json { print(#"{"was_registered":\#(response.wasRegistered)}"#) } else {
                    print(response.wasRegistered ? "Removed." : "\(user) has no such device.")
                }
                return
            }
            var request = ListDevicesRequest()
            request.userID = user
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(message: response)
                return
            }
            guard !response.devices.isEmpty else {
                print("No devices registered for \(user).")
                return
            }
            var table = TextTable("DEVICE", "APNS", "APP", "UPDATED (UTC)", "LAST PUSH")
            for device in response.devices {
                let last = device.lastOutcome.isEmpty ? "none yet" : "\(device.lastOutcome) (\(AlertsCommand.time(device.lastOutcomeAtUnixMs)))"
                table.add(
                    AlertsCommand.device(device.token), device.environment == .sandbox ? "sandbox" : "production", device.appVersion.isEmpty ? "-" : device.appVersion,
                    AlertsCommand.time(device.updatedAtUnixMs), last)
            }
            print(table.rendered)
        }
    }

    /// `alerts replay`: dead letters back into the outbox.
    struct Replay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send dead-lettered alerts again (same id, same body); also switches a webhook disabled by HTTP 410 back on.",
            discussion: "Example: farelensctl alerts replay a0f3a9c2b7d1e4a55   or   farelensctl alerts replay --since 2026-11-20"
        )
        @Argument(help: "One alert id (a…).") var alertID: String?
        @Option(name: .long, help: "Every dead letter accepted on or after this UTC date, YYYY-MM-DD.") var since: String?
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            guard (alertID == nil) != (since == nil) else { throw ValidationError("give either an alert id or --since DATE") }
            // An empty id would be sent as none, which the service reads as "every dead letter" (wire: since 0 means all).
            if let alertID, alertID.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("the alert id is empty: give one alert id (a…), or --since DATE for every dead letter since then")
            }
            if let since, CalendarDate(iso: since) == nil { throw ValidationError("--since must be a date, YYYY-MM-DD") }
        }

        func run() async throws {
            var request = ReplayAlertsRequest()
            if let alertID { request.alertID = alertID }
            if let since, let date = CalendarDate(iso: since) { request.sinceUnixMs = Int64(date.daysSinceEpoch) * 86_400_000 }
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(message: response)
                return
            }
            print(response.alertIds.isEmpty ? "Nothing to replay." : "Replaying \(response.alertIds.count): \(response.alertIds.joined(separator: " "))")
        }
    }


    /// The decision `--decision` names: one of ``AlertDecision/names``
    /// (`not_alertable`, as metrics and reports spell it; docs/alerts.md).
    static func decision(_ text: String) throws -> AlertDecision {
        guard let decision = AlertDecision(name: text) else {
            throw ValidationError("--decision '\(text)' is not a decision: use one of \(AlertDecision.names)")
        }
        return decision
    }

    /// The decision's name for the table (``AlertDecision/name``).
    static func decisionName(_ decision: AlertDecision) -> String {
        decision.name ?? "?"
    }

    static func deliveryName(_ state: DeliveryState) -> String {
        switch state {
        case .notQueued: "-"
        case .pending: "pending"
        case .delivered: "delivered"
        case .deadLettered: "dead letter"
        case .endpointDisabled: "endpoint off"
        case .droppedStale: "dropped"
        case .inDigest: "in digest"
        case .maybeDelivered: "maybe delivered"
        case .deviceRemoved: "device removed"
        default: "?"
        }
    }

    /// A device token as the tables show it: its last 8 digits, enough to tell a user's phones apart.
    static func device(_ token: String) -> String { "…" + token.suffix(8) }

    /// "2026-11-22 14:05Z".
    static func time(_ unixMs: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(unixMs) / 1_000)
        let day = CalendarDate.of(date, in: .gmt)
        let minutes = Int(date.timeIntervalSince1970) / 60 % 1_440
        return "\(day) \(String(format: "%02d:%02d", minutes / 60, minutes % 60))Z"
    }

    /// The history as a table for 80+ columns: when, decision, route, price, delivery, title, and the reason on its own line.
    static func table(_ alerts: [AlertRecord]) -> String {
        var table = TextTable("DECIDED (UTC)", "DECISION", "ROUTE", "PRICE", "DELIVERY", "ALERT")
        for alert in alerts {
            let route = alert.origin.isEmpty ? "digest" : "\(alert.origin)→\(alert.destination)"
            let price = alert.hasPrice ? alert.price.headline : ""
            table.add(time(alert.decidedAtUnixMs), decisionName(alert.decision), route, price, deliveryName(alert.deliveryState), alert.content.title)
            table.add("", "", "", "", "", "  why: " + alert.reason)
            for push in alert.deliveries where push.channel == .push {
                let error = push.error.isEmpty ? "" : ": " + push.error
                table.add("", "", "", "", "", "  push \(device(push.deviceToken)): \(deliveryName(push.state))\(error)")
            }
        }
        return table.rendered
    }
}
