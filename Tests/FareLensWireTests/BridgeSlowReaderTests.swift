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
            let socket = temporarySocketPath()
            let hubBus = makeNodeBus("hub")
            try hubBus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
            var configuration = fastBridge(socket)
            configuration.limits.maxUnwrittenBytes = 256 << 10
            let logs = InMemoryLogHandler()
            let (hub, hubTask) = try await startHub(hubBus, configuration, logger: recordingLogger(logs, level: .warning))
            let callerBus = makeNodeBus("caller")
            let (_, callerTask) = try await startSpoke(callerBus, fastBridge(socket), name: "caller")
            let reader = try RawSocketClient(path: socket)
            try reader.send(rawHello(name: "reader"))
            try await waitUntil("the reader joined") { hub.connection(named: "reader") != nil }

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
}
