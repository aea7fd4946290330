import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl alerts set-aside|retry-set-aside`: events whose decisions
/// could not be recorded for a reason in their data (docs/alerts.md, "A
/// batch that cannot be recorded").
extension AlertsCommand {
    /// `alerts set-aside`: the events set aside.
    struct SetAside: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-aside",
            abstract: "Events whose alert decisions could not be recorded (a bug to report): which event, when, and SQLite's error.",
            discussion: "Each is named PUBLISHER/SEQUENCE, the name retry-set-aside takes. Example: farelensctl alerts set-aside --json"
        )
        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            let response = try await CtlRun.request(options, SetAsideEventsRequest())
            if options.json {
                try CtlRun.printJSON(message: response)
                return
            }
            guard !response.events.isEmpty else {
                print("No events set aside.")
                return
            }
            var table = TextTable("SET ASIDE (UTC)", "EVENT", "INPUT", "CANDIDATES", "RETRIABLE", "ERROR")
            for event in response.events {
                table.add(
                    AlertsCommand.time(event.setAsideAtUnixMs), "\(event.publisher)/\(event.sequence)", event.consumer,
                    "\(event.candidates)", event.retriable ? "yes" : "no", event.error)
            }
            print(table.rendered)
        }
    }

    /// `alerts retry-set-aside`: set-aside events decided again.
    struct RetrySetAside: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry-set-aside",
            abstract: "Decide set-aside events again from their kept content, once the fault is fixed; each decided event is no longer set aside.",
            discussion: """
                Exits 1 when an event was not decided (it failed again, or its content was not kept); it stays set aside.
                Example: farelensctl alerts retry-set-aside farelens#1x9k3q2m7z/1042   or   farelensctl alerts retry-set-aside --all
                """
        )
        @Argument(help: "Events as PUBLISHER/SEQUENCE (the publisher is a node name and its epoch, farelens#1x9k3q2m7z), as `alerts set-aside` lists them.") var events: [String] = []
        @Flag(name: .long, help: "Every set-aside event.") var all = false
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            guard all == events.isEmpty else { throw ValidationError("give either events (PUBLISHER/SEQUENCE) or --all") }
            for event in events { _ = try Self.key(event) }
        }

        /// "PUBLISHER/SEQUENCE", split at the last slash.
        static func key(_ text: String) throws -> SetAsideEventKey {
            guard let slash = text.lastIndex(of: "/"), slash != text.startIndex, let sequence = UInt64(text[text.index(after: slash)...]) else {
                throw ValidationError("'\(text)' is not an event: PUBLISHER/SEQUENCE, as `alerts set-aside` lists them")
            }
            var key = SetAsideEventKey()
            key.publisher = String(text[..<slash])
            key.sequence = sequence
            return key
        }

        func run() async throws {
            var request = RetrySetAsideRequest()
            request.all = all
            request.events = try events.map(Self.key)
            let response = try await CtlRun.request(options, request)
            if options.json {
                try CtlRun.printJSON(message: response)
            } else if response.events.isEmpty {
                print("No events set aside.")
            } else {
                for retried in response.events {
                    let name = "\(retried.event.publisher)/\(retried.event.sequence)"
                    print(retried.decided ? "\(name): decided (\(retried.decisions) decisions)" : "\(name): not decided, still set aside: \(retried.error)")
                }
            }
            if response.events.contains(where: { !$0.decided }) { throw ExitCode(1) }
        }
    }
}
