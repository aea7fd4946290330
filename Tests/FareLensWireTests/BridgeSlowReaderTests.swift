import FareLensBus
import FareLensMessages
import FareLensTesting
@testable import FareLensWire
import Foundation
import InMemoryLogging
import Logging
import Testing

/// A peer that sends requests but never reads its replies is disconnected
/// as `slow-consumer` once more than ``WireLimits/maxUnwrittenBytes`` wait
/// for it: the replies do not pile up in the hub without bound, and other
/// peers are served throughout (docs/wire-protocol.md § 7.5).
@Suite("A peer that never reads")
struct BridgeSlowReaderTests {
    @Test("A peer that sends requests and never reads the replies is closed as slow-consumer once the unwritten replies pass the cap; other peers are served")
    func slowConsumerIsClosed() async throws {
        try await withTimeLimit("the slow reader test finished", limit: .seconds(60)) {
            let (socket, hub, hubTask, logs) = try await Self.startEchoHub(maxUnwrittenBytes: 256 << 10)
            let callerBus = makeNodeBus("caller")
            let (_, callerTask) = try await startSpoke(callerBus, fastBridge(socket), name: "caller")
            let reader = try await Self.joinedReader(socket: socket, hub: hub)

            // Writes until the hub closes (the writes fail) or stops taking them.
            let attempted = 300_000
            let accepted = try reader.writeUntilRefused(count: attempted) { index in
                try rawEchoRequest(id: UInt64(index + 1), text: "never read \(index)")
            }
            #expect(accepted < attempted, "the hub answered every request of a peer that reads nothing")
            try await waitUntil("the reader's connection closed") { hub.connection(named: "reader") == nil }
            let closing = logs.entries.first { $0.message.description == "closing bridge connection" }
            #expect(closing?.metadata["reason"]?.description.hasPrefix("slow-consumer: the peer has not read ") == true, "\(String(describing: closing))")

            for index in 0 ..< 20 {
                #expect(try await callerBus.request(EchoRequest(text: "still served \(index)")).text == "still served \(index)")
            }
            reader.close()
            for task in [callerTask, hubTask] { task.cancel(); _ = await task.result }
        }
    }

    @Test("A connection closed for a fault is closed after the goodbye grace when the peer does not read, so its name is free again")
    func goodbyeHasAGrace() async throws {
        try await withTimeLimit("the goodbye grace test finished", limit: .seconds(60)) {
            let (socket, hub, hubTask, logs) = try await Self.startEchoHub(maxUnwrittenBytes: WireLimits().maxUnwrittenBytes)
            let reader = try await Self.joinedReader(socket: socket, hub: hub)
            // Replies the reader never reads, more than both sockets' buffers hold: the hub's writes back up (below the slow-consumer cap).
            _ = try reader.writeUntilRefused(count: 40_000) { index in
                try rawEchoRequest(id: UInt64(index + 1), text: "never read \(index)")
            }
            let connection = try #require(hub.connection(named: "reader"))
            try await waitUntil("the replies backed up") { !connection.channel.isWritable }

            // A second HELLO is a fault: the hub closes with a GOODBYE that cannot be written.
            try reader.send(rawHello(name: "reader"))
            try await waitUntil("the fault was seen") { logs.entries.contains { $0.message.description == "closing bridge connection" } }
            // Bounded by the grace (2 s), not by the peer: without it the connection stays open until the peer reads.
            try await waitUntil("the reader's connection closed", limit: .seconds(20)) { hub.connection(named: "reader") == nil }
            let reason = logs.entries.first { $0.message.description == "closing bridge connection" }?.metadata["reason"]?.description ?? ""
            #expect(reason.hasPrefix("unexpected-message: "), "\(reason)")
            reader.close()
            hubTask.cancel()
            _ = await hubTask.result
        }
    }

    /// A hub serving `EchoRequest` whose warnings are kept in `logs`.
    static func startEchoHub(maxUnwrittenBytes: Int) async throws -> (socket: String, hub: BridgeHub, task: Task<Void, any Error>, logs: InMemoryLogHandler) {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        try hubBus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
        var configuration = fastBridge(socket)
        configuration.limits.maxUnwrittenBytes = maxUnwrittenBytes
        let logs = InMemoryLogHandler()
        let (hub, task) = try await startHub(hubBus, configuration, logger: recordingLogger(logs, level: .warning))
        return (socket, hub, task, logs)
    }

    /// A raw peer named "reader" that has said hello and been admitted, and will never read.
    static func joinedReader(socket: String, hub: BridgeHub) async throws -> RawSocketClient {
        let reader = try RawSocketClient(path: socket)
        try reader.send(rawHello(name: "reader"))
        try await waitUntil("the reader joined") { hub.connection(named: "reader") != nil }
        return reader
    }
}
