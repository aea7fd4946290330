import ArgumentParser
import FareLensBus
import FareLensMessages
import Foundation
import SwiftProtobuf
import Synchronization

/// `farelensctl events tail [TOPIC…]`: watch events as they are published.
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Watch the mesh's events.",
        subcommands: [Tail.self]
    )

    struct Tail: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tail",
            abstract: "Print events as they are published, one line each, until interrupted.",
            discussion: """
                Watching is best effort: the node sends this client a copy of each event on the named topics \
                (every topic when none is named) and drops copies this client cannot take in time; it keeps \
                nothing for it and forgets it when it leaves.

                Example: farelensctl events tail search.fare-observed --count 5 --json
                """
        )

        @Argument(help: "Topics to watch, e.g. search.fare-observed (default: every topic).") var topics: [String] = []
        @Option(name: .long, help: "Stop after this many events.") var count: Int?
        @Option(name: .long, help: "Stop after this many seconds.") var seconds: Int?
        @OptionGroup var options: ConnectionOptions

        func validate() throws {
            let known = Set(MessageCatalog.events.map { $0.topic.name })
            for topic in topics where !known.contains(topic) {
                throw ValidationError("unknown topic '\(topic)'; known topics: \(known.sorted().joined(separator: ", "))")
            }
            try Self.check(count: count, seconds: seconds)
        }

        /// A year: a longer watch overflowed the sleep's nanoseconds (a crash, not an error).
        static let maximumSeconds = 31_536_000

        /// The checks `events tail` and `alerts tail` share.
        static func check(count: Int?, seconds: Int?) throws {
            if let count, count <= 0 { throw ValidationError("--count must be positive, not \(count)") }
            if let seconds, !(1 ... maximumSeconds).contains(seconds) {
                throw ValidationError("--seconds must be 1–\(maximumSeconds) (a year), not \(seconds)")
            }
        }

        func run() async throws {
            let topics = Set(self.topics), json = options.json, count = self.count, seconds = self.seconds
            let subscription = SubscriptionBox()
            do {
                try await AdminSession.run(options, prepare: { bus in
                    bus.registerEventTypes(MessageCatalog.events)
                    subscription.value.withLock { $0 = bus.subscribeAll(watching: topics.isEmpty ? nil : topics) }
                }) { _, _ in
                    guard let events = subscription.value.withLock({ $0 }) else { return }
                    // --seconds ends the watch even when no event comes: ending the
                    // subscription ends the loop below.
                    let timer = seconds.map { seconds in
                        Task {
                            try? await Task.sleep(for: .seconds(seconds))  // safe: the --seconds the user asked for; cancelled when the watch ends first
                            events.cancel()
                        }
                    }
                    defer { timer?.cancel() }
                    var printed = 0
                    for await delivery in events {
                        CtlRun.emit(Self.line(delivery, json: json))
                        printed += 1
                        if let count, printed >= count { return }
                    }
                }
            } catch {
                CtlRun.fail(CtlFailure(error, timeoutMs: options.timeoutMs))
            }
        }

        static func line(_ delivery: Delivery<any BusEvent>, json: Bool) -> String {
            let metadata = delivery.metadata
            // The .proto field names (snake_case), like every other --json output.
            let payload = (delivery.event as? any SwiftProtobuf.Message).flatMap { try? CtlRun.jsonText($0) } ?? "{}"
            guard json else { return "\(metadata.topic.name)  \(metadata.id)  \(payload)" }
            let topic = CtlRun.jsonString(metadata.topic.name), type = CtlRun.jsonString(metadata.typeName), id = CtlRun.jsonString("\(metadata.id)")
            return #"{"topic":\#(topic),"type":\#(type),"id":\#(id),"event":\#(payload)}"#
        }
    }
}

/// Carries the subscription made before the hello into the session's body.
private final class SubscriptionBox: Sendable {
    let value = Mutex<EventSubscription<any BusEvent>?>(nil)
}
