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
        } catch let error as WireProtocolError {
            fail(error.message)
        } catch let error as BusError {
            fail("\(R.address): \(error)")
        } catch {
            fail(String(describing: error))
        }
    }

    /// The CLI never hangs: whatever is stuck (a node that accepts but never
    /// answers, a connection that will not close), the process ends with a
    /// one-line error a second after its `--timeout-ms` budget.
    static func armWatchdog(_ options: ConnectionOptions) {
        let budget = options.timeoutMs, socket = options.socketPath
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: Double(budget + 1000) / 1000)  // safe: a watchdog on its own thread, never the pool
            fail("no answer from the node at \(socket) within \(budget) ms")
        }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("farelensctl: error: \(message)\n".utf8))
        Foundation.exit(1)
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
