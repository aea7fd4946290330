import FareLensBus
import FareLensMessages
import FareLensTesting
import FareLensWire
import Foundation
import SwiftProtobuf
import Testing

/// Wire details a client in another language depends on, checked with
/// hand-built bytes (docs/wire-protocol.md sections 4.2 and 6.2).
@Suite("Wire format details")
struct BridgeWireFormatTests {
    /// One frame, uncompressed, around hand-written envelope bytes.
    func frame(_ envelope: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(envelope.count + 1).bigEndian, Array.init) + [0x00] + envelope
    }

    @Test("Swift writes acked_tags packed: tags 41 and 300 are the envelope 08 06 62 03 29 AC 02")
    func acknowledgementIsPacked() throws {
        var ack = WireEnvelope()
        ack.kind = .eventAck
        ack.ackedTags = [41, 300]
        let bytes: [UInt8] = try ack.serializedBytes()
        #expect(bytes == [0x08, 0x06, 0x62, 0x03, 0x29, 0xAC, 0x02])
    }

    @Test("an EVENT_ACK with acked_tags unpacked and one with them packed both acknowledge their tags")
    func packedAndUnpackedAcknowledgements() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let (hub, task) = try await startHub(hubBus, fastBridge(path))
        let subscriber = try RawSocketClient(path: path)
        try subscriber.send(rawHello(name: "subscriber", topics: [PriceDropped.topic.name]))
        async let delivered = subscriber.readUntil { envelopes in envelopes.filter { $0.kind == .event }.count == 4 }
        try await waitUntil("the hub welcomed the subscriber") { hub.meshStatus().nodes.contains { $0.nodeName == "subscriber" && $0.connected } }
        for sequence in 1 ... 4 { try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: sequence)) }
        let tags = await delivered.filter { $0.kind == .event }.map(\.correlationID)
        #expect(tags == [1, 2, 3, 4])
        func pending() -> UInt64? { hub.meshStatus().nodes.first { $0.nodeName == "subscriber" }?.pendingDurableEvents }
        #expect(pending() == 4)

        // field 12 unpacked: key 0x60 (wire type 0) once per tag
        subscriber.write(frame([0x08, 0x06, 0x60, 0x01, 0x60, 0x02]))
        try await waitUntil("tags 1 and 2 are acknowledged") { pending() == 2 }
        // field 12 packed: key 0x62 (wire type 2), length 2, varints 3 and 4
        subscriber.write(frame([0x08, 0x06, 0x62, 0x02, 0x03, 0x04]))
        try await waitUntil("tags 3 and 4 are acknowledged") { pending() == 0 }
        subscriber.close()
        task.cancel()
    }

    @Test("deadline_micros 0 (absent) to an address the hub hosts is answered timeout without running the handler")
    func zeroDeadlineAtHub() async throws {
        let path = temporarySocketPath()
        let hubBus = makeNodeBus("hub")
        let calls = Locked(0)
        try hubBus.serve(EchoRequest.self) { request, _ in
            calls.update { $0 += 1 }
            return EchoResponse(text: request.text)
        }
        let (_, task) = try await startHub(hubBus, fastBridge(path))
        let client = try RawSocketClient(path: path)
        try client.send(rawHello(name: "client"))
        try client.send(try rawEchoRequest(id: 7, text: "late", deadlineMicros: 0))
        let response = try #require(await client.readUntil(kind: .response).first { $0.kind == .response })
        client.close()
        #expect(response.correlationID == 7)
        #expect(response.error.kind == "timeout")
        #expect(response.error.message == "\(EchoRequest.wireTypeName): deadline passed before a response")
        #expect(calls.get() == 0)
        task.cancel()
    }

    @Test("deadline_micros 0 (absent) to an address a spoke hosts is answered timeout by the hub without forwarding it")
    func zeroDeadlineNotForwarded() async throws {
        let path = temporarySocketPath()
        let (_, task) = try await startHub(makeNodeBus("hub"), fastBridge(path))
        let echoBus = makeNodeBus("echo-node")
        let calls = Locked(0)
        try echoBus.serve(EchoRequest.self) { request, _ in
            calls.update { $0 += 1 }
            return EchoResponse(text: request.text)
        }
        let (_, echoTask) = try await startSpoke(echoBus, fastBridge(path), name: "echo-node")
        let client = try RawSocketClient(path: path)
        try client.send(rawHello(name: "client"))
        try client.send(try rawEchoRequest(id: 9, text: "late", deadlineMicros: 0))
        let response = try #require(await client.readUntil(kind: .response).first { $0.kind == .response })
        client.close()
        #expect(response.correlationID == 9)
        #expect(response.error.kind == "timeout")
        #expect(response.error.message == "\(EchoRequest.wireTypeName) to 'echo': deadline passed before a response")
        #expect(calls.get() == 0)
        for t in [echoTask, task] { t.cancel() }
    }
}
