import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl appstore notifications`: what the App Store has posted (docs/payments.md).
struct AppStoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appstore",
        abstract: "The App Store's server notifications as the subscription service received them.",
        subcommands: [Notifications.self]
    )

    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The notifications received most recently, newest first, with what each did.",
            discussion: """
                Example: farelensctl appstore notifications --limit 5 --json
                After App Store Connect's "Request a Test Notification", a TEST row appears here (outcome RECORDED).
                """
        )
        @Option(name: .long, help: "How many, 1–500.") var limit = 20
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            guard (1...500).contains(limit) else { throw ValidationError("--limit must be from 1 to 500, not \(limit)") }
        }

        func run() async throws {
            var request = RecentStoreNotificationsRequest()
            request.limit = Int32(limit)
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(message: response)
                return
            }
            guard !response.notifications.isEmpty else {
                print("No App Store notification received yet (the endpoint: POST /v1/appstore/notifications; docs/payments.md).")
                return
            }
            var table = TextTable("RECEIVED", "TYPE", "OUTCOME", "USER", "TRANSACTION", "DETAIL")
            for notification in response.notifications {
                let type = notification.subtype.isEmpty ? notification.notificationType : "\(notification.notificationType) (\(notification.subtype))"
                table.add(
                    AlertsCommand.time(notification.receivedAtUnixMs), type, Self.outcome(notification), notification.userID.isEmpty ? "-" : notification.userID,
                    notification.transactionID.isEmpty ? "-" : notification.transactionID, notification.detail.isEmpty ? "-" : notification.detail)
            }
            print(table.rendered)
        }

        static func outcome(_ notification: StoreNotification) -> String {
            switch notification.outcome {
            case .applied: "applied as \(notification.kind)"
            case .duplicate: "duplicate"
            case .stale: "stale (kept, nothing changed)"
            case .recorded: "recorded"
            case .unmatched: "no user"
            default: "\(notification.outcome)"
            }
        }
    }
}
