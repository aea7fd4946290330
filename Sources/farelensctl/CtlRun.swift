import ArgumentParser
import FareLensBus
import FareLensMessages
import FareLensWire
import Foundation
import SwiftProtobuf

/// Shared plumbing of the commands: one request, errors as one line.
enum CtlRun {
    /// Sends one request through an admin session and returns its response;
    /// any failure becomes `farelensctl: error: …` and exit status 1.
    static func request<R: BusRequest>(_ options: ConnectionOptions, _ request: R) async throws -> R.Response where R.Response: Sendable {
        armWatchdog(options)
        do {
            return try await AdminSession.run(options) { bus, budget in
                try await bus.request(request, timeout: budget)
            }
        } catch {
            fail(CtlFailure(error, address: error is BusError ? "\(R.address)" : nil, timeoutMs: options.timeoutMs))
        }
    }

    /// The CLI never hangs: whatever is stuck (a node that accepts but never
    /// answers, a connection that will not close), the process ends with a
    /// one-line error a second after its `--timeout-ms` budget.
    static func armWatchdog(_ options: ConnectionOptions) {
        let budget = options.timeoutMs, socket = options.socketPath
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Double(budget + 1000) / 1000)  // safe: a watchdog on its own thread, never the pool
            fail(CtlFailure(code: "timeout", "no answer from the node at \(socket) within the --timeout-ms budget of \(budget) ms", field: "--timeout-ms"))
        }
    }

    /// Whether the command line asked for `--json`: errors are then one
    /// JSON object on stdout (``CtlFailure``), even those found before a
    /// command has read its options.
    static let jsonRequested: Bool = CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")

    /// Reports `failure` (``CtlFailure``: stderr, or stdout as JSON with
    /// `--json`) and exits with its status.
    static func fail(_ failure: CtlFailure) -> Never {
        if jsonRequested {
            try? StandardStreams.writeOutput(jsonLine(failure) + "\n")
        } else {
            try? StandardStreams.writeError("farelensctl: error: \(failure.line)\n")
        }
        Foundation.exit(failure.exitStatus)
    }

    /// `{"error":{"code":…,"message":…,"field":…}}`, `field` null when no one field is at fault.
    static func jsonLine(_ failure: CtlFailure) -> String {
        let field = failure.field.map(jsonString) ?? "null"
        return #"{"error":{"code":\#(jsonString(failure.code)),"message":\#(jsonString(failure.message)),"field":\#(field)}}"#
    }

    /// Writes `text` and a newline to stdout at once (not buffered, so `| grep`
    /// sees each line as it comes). A reader that has gone (`| head -5` has
    /// its lines) ends the command quietly with status 0, as `yes | head` does.
    static func emit(_ text: String) {
        do {
            try StandardStreams.writeOutput(text + "\n")
        } catch .readerGone {
            Foundation.exit(0)
        } catch {
            Foundation.exit(1)
        }
    }

    /// A response message as JSON with its snake_case field names, like
    /// ``printJSON(_:)``'s keys (protobuf's default JSON names are lowerCamelCase).
    static func printJSON(message: some SwiftProtobuf.Message) throws {
        print(try jsonText(message))
    }

    /// `message` as protobuf's JSON with the `.proto` (snake_case) field
    /// names, keys sorted, and the fields left at their defaults printed too
    /// (an empty list as `[]`, not left out): ``ProtoJSONWithDefaults``.
    static func jsonText(_ message: any SwiftProtobuf.Message) throws -> String {
        try ProtoJSONWithDefaults.fareLens.text(of: message)
    }

    /// `text` as a JSON string literal, quoted and escaped (a `/` left as it is: event ids are `publisher/sequence`).
    static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    /// `value` as pretty-printed JSON, keys sorted and in snake_case.
    static func printJSON(_ value: some Encodable) throws {
        print(try prettyJSON(value))
    }

    /// What ``printJSON(_:)`` prints.
    static func prettyJSON(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        // Time zones and links keep their slashes ("Europe/London", not "Europe\/London").
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
