#if NATS
import FareLensBus
import FareLensMessages
@testable import FareLensNATS
import FareLensTesting
import Foundation
import Logging
import Testing

/// Admin operations over NATS are for admin credentials only, as the
/// socket's uid allow-list keeps them for admin uids: the NATS server's
/// subject permissions (the shipped `ops/nats/permissions.conf`) keep a node
/// connected as `node` from reaching or serving an admin address, and the
/// transport turns the server's refusal into `forbidden` at once.
@Suite("NATS: admin addresses only for admin credentials; a node speaks only for itself")
struct NATSPermissionsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A server started with the shipped permissions file `file` (under ops/nats) and the passwords it reads.
    static func server(_ file: String, passwords: [String: String]) async throws -> TestNATSServer {
        try await TestNATSServer.start(extraArguments: ["-c", repository.appendingPathComponent("ops/nats/" + file).path], environment: passwords)
    }

    /// A node's settings on `server`'s `farelens` namespace as `user`.
    static func settings(_ server: TestNATSServer, _ user: String, _ password: String) -> NATSSettings {
        var settings = NATSSettings(urls: [server.url], namespace: "farelens")
        settings.heartbeat = .milliseconds(500)
        (settings.user, settings.password) = (user, password)
        return settings
    }

    @Test("with ops/nats/permissions.conf a 'node' user's request to an admin address is forbidden at once and never handled, and it cannot serve one; an 'admin' user reaches it; ordinary requests work for both, and a 'node' replies only to requests delivered to it and cannot delete the stream or a consumer")
    func adminAddressesNeedAdminCredentials() async throws {
        let server = try await Self.server("permissions.conf", passwords: ["FARELENS_NATS_ADMIN_PASSWORD": "admin-secret-1", "FARELENS_NATS_NODE_PASSWORD": "node-secret-2"])
        defer { server.kill() }
        func settings(_ user: String, _ password: String) -> NATSSettings { Self.settings(server, user, password) }
        let adminHandled = Locked(0)
        let core = try await NATSTransportTests.Node(name: "core", settings: settings("admin", "admin-secret-1")) { bus in
            try bus.serve(EchoRequest.self, at: "admin.echo") { _, _ in
                adminHandled.update { $0 += 1 }
                return EchoResponse(text: "admin")
            }
            try bus.serve(SlowRequest.self) { _, _ in EchoResponse(text: "core") }
            return nil
        }
        defer { core.stop() }
        let edge = try await NATSTransportTests.Node(name: "edge", settings: settings("node", "node-secret-2")) { bus in
            try bus.serve(EchoRequest.self, at: "admin.edge") { _, _ in EchoResponse(text: "edge") }
            try bus.serve(ShoutRequest.self) { request, _ in EchoResponse(text: "edge " + request.text) }
            return nil
        }
        defer { edge.stop() }
        let ops = try await NATSTransportTests.Node(name: "ops", settings: settings("admin", "admin-secret-1"))
        defer { ops.stop() }
        try await waitUntil("the three nodes heard each other") {
            [core, edge, ops].allSatisfy { $0.transport.knownNodes.count == 2 }
        }

        // The edge node: refused by the server, told at once (not at the deadline), never handled.
        let refused = await busError { try await edge.bus.request(EchoRequest(text: "x"), timeout: .seconds(20), to: "admin.echo") }
        #expect(refused?.kind == .forbidden, "\(String(describing: refused))")
        #expect(adminHandled.get() == 0)
        // Its ordinary requests pass, and it answers those it receives (allow_responses: a reply to a request delivered to it).
        #expect(try await edge.bus.request(SlowRequest(), timeout: .seconds(10)).text == "core")
        #expect(try await core.bus.request(ShoutRequest(text: "hi"), timeout: .seconds(10)).text == "edge hi")
        // It cannot forge a reply on a subject it was not asked on: a guessed id of core's reply subject is refused.
        let refusedReplies = Locked<[String]>([])
        let forger = try NATSConnection(settings: settings("node", "node-secret-2"), name: "forger") { event in
            if case .notPermitted(let subject, true) = event { refusedReplies.update { $0.append(subject) } }
        }
        defer { forger.close() }
        try forger.publish("farelens.reply.core.1", payload: [0])
        try await waitUntil("the server refused the forged reply") { refusedReplies.get() == ["farelens.reply.core.1"] }
        // Nor delete or purge the durable events' stream (JetStream's destructive API is for admin users).
        // (One at a time: the client reads a violation's subject from the connection's last error.)
        try forger.publish("$JS.API.STREAM.DELETE.farelens_durable", reply: "_INBOX.forger.1", payload: [])
        try await waitUntil("the server refused deleting the stream") { refusedReplies.get().last == "$JS.API.STREAM.DELETE.farelens_durable" }
        try forger.publish("$JS.API.CONSUMER.DELETE.farelens_durable.core", reply: "_INBOX.forger.2", payload: [])
        try await waitUntil("the server refused deleting a consumer") { refusedReplies.get().last == "$JS.API.CONSUMER.DELETE.farelens_durable.core" }
        #expect(refusedReplies.get() == ["farelens.reply.core.1", "$JS.API.STREAM.DELETE.farelens_durable", "$JS.API.CONSUMER.DELETE.farelens_durable.core"])
        // An admin node reaches the admin address; nobody reaches the one the edge node tried to serve.
        #expect(try await ops.bus.request(EchoRequest(text: "y"), timeout: .seconds(10), to: "admin.echo").text == "admin")
        #expect(adminHandled.get() == 1)
        let unserved = await busError { try await ops.bus.request(EchoRequest(text: "z"), timeout: .seconds(10), to: "admin.edge") }
        #expect(unserved?.kind == .serviceUnavailable, "\(String(describing: unserved))")
    }

    @Test("with ops/nats/permissions.conf a 'node' user may not update the durable stream (a shorter age limit would drop events): the server refuses the update, and a node of that user whose retention differs from the stream's starts and says the stream is used as it is")
    func streamUpdatesAreAdmins() async throws {
        let server = try await Self.server("permissions.conf", passwords: ["FARELENS_NATS_ADMIN_PASSWORD": "admin-secret-1", "FARELENS_NATS_NODE_PASSWORD": "node-secret-2"])
        defer { server.kill() }
        // The admin node makes the stream with the default seven days.
        let core = try await NATSTransportTests.Node(name: "core", settings: Self.settings(server, "admin", "admin-secret-1"))
        defer { core.stop() }
        // A node user's node asking for one hour: refused the update, it starts all the same and says so.
        let lines = Locked<[String]>([])
        var logger = Logger(label: "edge") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .warning
        var shorter = Self.settings(server, "node", "node-secret-2")
        shorter.retention = .seconds(3600)
        let edge = try await NATSTransportTests.Node(name: "edge", settings: shorter, logger: logger)
        defer { edge.stop() }
        #expect(lines.get().contains { $0.contains("the stream is used as it is") }, "\(lines.get())")
        try await waitUntil("the two nodes heard each other") { core.transport.knownNodes.count == 1 && edge.transport.knownNodes.count == 1 }
        // Published by hand, the update is refused by the server.
        let refused = Locked<[String]>([])
        let forger = try NATSConnection(settings: Self.settings(server, "node", "node-secret-2"), name: "forger") { event in
            if case .notPermitted(let subject, true) = event { refused.update { $0.append(subject) } }
        }
        defer { forger.close() }
        try forger.publish("$JS.API.STREAM.UPDATE.farelens_durable", reply: "_INBOX.forger.1", payload: Array(#"{"name":"farelens_durable","max_age":1}"#.utf8))
        try await waitUntil("the server refused updating the stream") { refused.get() == ["$JS.API.STREAM.UPDATE.farelens_durable"] }
        // An admin node asking for other settings updates the stream: no warning.
        let adminLines = Locked<[String]>([])
        var adminLogger = Logger(label: "ops") { _ in CapturingLogHandler(lines: adminLines) }
        adminLogger.logLevel = .warning
        var adminShorter = Self.settings(server, "admin", "admin-secret-1")
        adminShorter.retention = .seconds(2 * 24 * 3600)
        let ops = try await NATSTransportTests.Node(name: "ops", settings: adminShorter, logger: adminLogger)
        defer { ops.stop() }
        #expect(!adminLines.get().contains { $0.contains("used as it is") }, "\(adminLines.get())")
    }

    @Test("with per-node users (ops/nats/permissions-per-node.conf) a node cannot speak for another: its forged goodbye on the other's subject and its forged reply on the other's reply subject are refused by the server, so are deleting and purging the stream and pulling from the other's consumer, and a goodbye on its own subject naming the other is ignored; requests, replies and durable events still pass both ways")
    func nodesSpeakOnlyForThemselves() async throws {
        let server = try await Self.server("permissions-per-node.conf", passwords: ["FARELENS_NATS_CORE_PASSWORD": "core-secret-1", "FARELENS_NATS_EDGE_PASSWORD": "edge-secret-2"])
        defer { server.kill() }
        func settings(_ user: String, _ password: String) -> NATSSettings { Self.settings(server, user, password) }
        let core = try await NATSTransportTests.Node(name: "core", settings: settings("core", "core-secret-1")) { bus in
            try bus.serve(SlowRequest.self) { _, _ in EchoResponse(text: "core") }
            return bus.subscribe(PriceDropped.self, bufferSize: 16)
        }
        defer { core.stop() }
        let edgeLog = Locked<[String]>([])
        let edgeLogger = Logger(label: "edge") { _ in CapturingLogHandler(lines: edgeLog) }
        let edge = try await NATSTransportTests.Node(name: "edge", settings: settings("edge", "edge-secret-2"), logger: edgeLogger) { bus in
            try bus.serve(EchoRequest.self) { request, _ in EchoResponse(text: "edge " + request.text) }
            return bus.subscribe(PriceDropped.self, bufferSize: 16)
        }
        defer { edge.stop() }
        try await waitUntil("the two nodes heard each other") { core.transport.knownNodes.count == 1 && edge.transport.knownNodes.count == 1 }

        // Everything a node does passes under its own user's allow-list.
        #expect(try await edge.bus.request(SlowRequest(), timeout: .seconds(10)).text == "core")
        #expect(try await core.bus.request(EchoRequest(text: "hi"), timeout: .seconds(10)).text == "edge hi")
        try await edge.bus.publish(PriceDropped(route: "LIS-NYC", sequence: 1))
        try await core.bus.publish(PriceDropped(route: "LIS-NYC", sequence: 2))
        // Each hears its own locally and the other's through the stream.
        #expect(try await Set(core.receive(2).map(\.sequence)) == [1, 2])
        #expect(try await Set(edge.receive(2).map(\.sequence)) == [1, 2])
        // So does a batch (an outbox's round), which goes through a second connection of the node's, under the same user.
        let batch = [4, 5].map { sequence in
            MessageBus.KeptIDEvent(
                event: PriceDropped(route: "LIS-NYC", sequence: sequence), id: EventID(publisher: "edge.outbox#1", sequence: UInt64(sequence)),
                traceID: .random(), onSettled: {})
        }
        #expect(await edge.bus.publish(batch: batch) == BatchOutcome(count: 2, refusal: nil))
        #expect(try await core.receive(2).map(\.sequence) == [4, 5])

        // A compromised edge, with its own credentials, forges core's goodbye: on core's subject
        // (the server refuses it), then on its own (every node ignores a heartbeat naming another).
        let refused = Locked<[String]>([])
        let forger = try NATSConnection(settings: settings("edge", "edge-secret-2"), name: "forger") { event in
            if case .notPermitted(let subject, true) = event { refused.update { $0.append(subject) } }
        }
        defer { forger.close() }
        var goodbye = WireHello()
        goodbye.nodeName = "core"
        let forged = try goodbye.serializedBytes() as [UInt8]
        try forger.publish("farelens.node.core", headers: [(Header.goodbye, "1")], payload: forged)
        try forger.publish("farelens.node.edge", headers: [(Header.goodbye, "1")], payload: forged)
        try await waitUntil("the server refused the forged subject") { refused.get() == ["farelens.node.core"] }
        // Nor can it forge core's answer to a request: only a reply to a request delivered to its own connection passes
        // (allow_responses); the reply ids are sequential, so without it a guess would do.
        try forger.publish("farelens.reply.core.2", payload: [0])
        try await waitUntil("the server refused the forged reply") { refused.get() == ["farelens.node.core", "farelens.reply.core.2"] }
        // Nor can it destroy the durable events: deleting or purging the stream is refused, and the stream goes on.
        // (One at a time: the client reads a violation's subject from the connection's last error, which a second one
        // arriving at once can overwrite.)
        try forger.publish("$JS.API.STREAM.DELETE.farelens_durable", reply: "_INBOX.forger.1", payload: [])
        try await waitUntil("the server refused deleting the stream") { refused.get().last == "$JS.API.STREAM.DELETE.farelens_durable" }
        try forger.publish("$JS.API.STREAM.PURGE.farelens_durable", reply: "_INBOX.forger.2", payload: [])
        try await waitUntil("the server refused purging the stream") { refused.get().last == "$JS.API.STREAM.PURGE.farelens_durable" }
        // Nor read another node's durable events: pulling from core's consumer is refused (its own works: events passed above).
        try forger.publish("$JS.API.CONSUMER.MSG.NEXT.farelens_durable.core", reply: "_INBOX.forger.3", payload: [])
        try await waitUntil("the server refused pulling core's consumer") { refused.get().last == "$JS.API.CONSUMER.MSG.NEXT.farelens_durable.core" }
        #expect(refused.get() == [
            "farelens.node.core", "farelens.reply.core.2", "$JS.API.STREAM.DELETE.farelens_durable", "$JS.API.STREAM.PURGE.farelens_durable",
            "$JS.API.CONSUMER.MSG.NEXT.farelens_durable.core",
        ])
        try await edge.bus.publish(PriceDropped(route: "LIS-NYC", sequence: 3))
        #expect(try await core.receive(1).map(\.sequence) == [3])
        try await waitUntil("edge ignored the goodbye on its own subject") {
            edgeLog.get().contains { $0.hasPrefix("warning heartbeat ignored: it names another node than its subject's") }
        }
        #expect(Array(edge.transport.knownNodes.keys) == ["core"], "neither forged goodbye made edge forget core")
        #expect(try await edge.bus.request(SlowRequest(), timeout: .seconds(10)).text == "core", "requests to core are not failed as 'node left'")
    }
}
#endif
