import AsyncHTTPClient
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensTesting
import Foundation
import GRDB
import Logging
import Testing

/// Every node answers node-level admin requests at `admin.node.<name>`:
/// metrics (also over HTTP), online backup, log level (issue #13).
@Suite("Node admin")
struct NodeAdminTests {
    @Test("GET /metrics serves the Prometheus text with the bus's request counts, the same families the node's admin address returns; other paths are 404")
    func metricsOverHTTPAndBus() async throws {
        let hub = try await AdminTestNode.start(metricsListen: true)
        let port = try #require(hub.node.metricsBoundPort)
        let fromBus = try await withPeer(hub.socket, reaching: .node("hub")) { bus in
            for index in 0 ..< 3 { _ = try await bus.request(EchoRequest(text: "e\(index)")) }
            return try await bus.request(NodeMetricsRequest(), to: .node("hub"))
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let text: String
        let notFound: UInt
        do {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            text = String(buffer: try await response.body.collect(upTo: 10 << 20))
            notFound = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/other"), timeout: .seconds(10)).status.code
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        try await hub.stop()
        let echoLine = #"farelens_bus_requests_total{type=""# + EchoRequest.wireTypeName + #"",address="echo"} 3"#
        #expect(text.contains(echoLine), "\(text.split(separator: "\n").filter { $0.contains("requests_total") })")
        #expect(text.contains("farelens_bus_request_duration_seconds_bucket{"))
        #expect(fromBus.nodeName == "hub")
        #expect(fromBus.text.contains(echoLine))
        #expect(Self.families(fromBus.text) == Self.families(text))
        #expect(notFound == 404)
    }

    @Test("a peer that is not an admin client is refused the node's admin address with forbidden; an admin client is served")
    func nonAdminRefused() async throws {
        let hub = try await AdminTestNode.start()
        let refused = try await withPeer(hub.socket, role: .node, reaching: .node("hub")) { bus in
            await failureCode { try await bus.request(NodeMetricsRequest(), to: .node("hub")) }
        }
        let served = try await withPeer(hub.socket, role: .admin, reaching: .node("hub")) { bus in
            await failureCode { try await bus.request(NodeDatabasesRequest(), to: .node("hub")) }
        }
        try await hub.stop()
        #expect(refused == "forbidden")
        #expect(served == nil)
    }

    @Test("backup copies a database online while its service keeps writing; the copy opens and has the rows; bad directories give named errors")
    func backupWhileWriting() async throws {
        let hub = try await AdminTestNode.start()
        let directory = hub.socket.replacingOccurrences(of: "/bus.sock", with: "/backup")
        let live = hub.node.configuration.dataDirectory + "/writer.sqlite"
        try await waitUntil("the writer wrote rows") { ((try? Self.rows(in: live)) ?? 0) > 20 }
        let (databases, backup, relative, again, unknown) = try await withPeer(hub.socket, reaching: .node("hub")) { bus in
            let databases = try await bus.request(NodeDatabasesRequest(), to: .node("hub"))
            var request = NodeBackupRequest()
            request.directory = directory
            request.service = "writer"
            let backup = try await bus.request(request, to: .node("hub"))
            let again = await failureCode { try await bus.request(request, to: .node("hub")) }
            request.directory = "relative/dir"
            let relative = await failureCode { try await bus.request(request, to: .node("hub")) }
            request.directory = directory + "-other"
            request.service = "nope"
            let unknown = await failureCode { try await bus.request(request, to: .node("hub")) }
            return (databases, backup, relative, again, unknown)
        }
        // The service is still writing after the backup.
        let copied = try Self.rows(in: backup.path)
        try await waitUntil("the writer kept writing") { ((try? Self.rows(in: live)) ?? 0) > copied }
        try await hub.stop()
        #expect(databases.services == ["echo", "writer"])
        #expect(backup.path == directory + "/hub/writer.sqlite")
        #expect(backup.bytes > 0)
        #expect(copied > 20)
        #expect(relative == "relative-path")
        #expect(again == "target-not-empty")
        #expect(unknown == "unknown-database")
    }

    @Test("a backup is written beside its name and renamed when whole: a partial file left behind is replaced; of two requests for one target one writes it and the other is target-not-empty; a path through a file is backup-failed saying so")
    func backupTargets() async throws {
        let hub = try await AdminTestNode.start()
        let directory = hub.socket.replacingOccurrences(of: "/bus.sock", with: "/backup")
        let partial = directory + "/hub/writer.sqlite.partial"
        let live = hub.node.configuration.dataDirectory + "/writer.sqlite"
        try await waitUntil("the writer wrote rows") { ((try? Self.rows(in: live)) ?? 0) > 0 }
        try FileManager.default.createDirectory(atPath: directory + "/hub", withIntermediateDirectories: true)
        try Data("not a database: a crashed backup's leftovers".utf8).write(to: URL(fileURLWithPath: partial))
        let file = hub.socket.replacingOccurrences(of: "/bus.sock", with: "/a-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let (outcomes, throughFile) = try await withPeer(hub.socket, reaching: .node("hub")) { bus in
            var request = NodeBackupRequest()
            request.directory = directory
            request.service = "writer"
            let same = request
            let outcomes = await withTaskGroup(of: String.self) { group in
                for _ in 0..<4 {
                    group.addTask { await failureCode { try await bus.request(same, to: .node("hub")) } ?? "ok" }
                }
                return await group.reduce(into: [String]()) { $0.append($1) }
            }
            request.directory = file + "/backups"
            var message = ""
            _ = await failureCode {
                do { return try await bus.request(request, to: .node("hub")) } catch { message = "\(error)"; throw error }
            }
            return (outcomes.sorted(), message)
        }
        try await hub.stop()
        #expect(outcomes == ["ok", "target-not-empty", "target-not-empty", "target-not-empty"])
        #expect(!FileManager.default.fileExists(atPath: partial), "the leftover was replaced, then renamed away")
        #expect(try Self.rows(in: directory + "/hub/writer.sqlite") > 0)
        #expect(throughFile.contains("backup-failed") && throughFile.contains("'\(file)' is a file, not a directory"), "\(throughFile)")
    }

    @Test("at info a node does not log debug lines; after log-level debug it does; an invalid level is refused naming the valid ones")
    func logLevelAtRunTime() async throws {
        let lines = Locked<[String]>([])
        var logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        logger.logLevel = .info
        let hub = try await AdminTestNode.start(logger: logger)
        let (invalid, message, before, change) = try await withPeer(hub.socket, reaching: .node("hub")) { bus in
            var request = NodeLogLevelRequest()
            request.level = "loud"
            var message = ""
            let invalid = await failureCode {
                do { return try await bus.request(request, to: .node("hub")) } catch { message = "\(error)"; throw error }
            }
            let before = lines.get()
            request.level = "debug"
            return (invalid, message, before, try await bus.request(request, to: .node("hub")))
        }
        #expect(before.contains { $0.hasPrefix("info") } && !before.contains { $0.hasPrefix("debug") }, "\(before)")
        try await hub.stop()
        #expect(invalid == "invalid-level")
        #expect(message.contains("trace, debug, info, notice, warning, error, critical"))
        #expect(change.previousLevel == "info" && change.level == "debug")
        // Shutting down logs at debug ("draining", "service stopped").
        #expect(lines.get().contains { $0.hasPrefix("debug") }, "\(lines.get())")
    }

    @Test("over the socket: a stepped clock moves forward when asked, never back; a node on another clock refuses to move with clock-not-stepped; load counts published events")
    func clockAtRunTime() async throws {
        let start = Date(timeIntervalSince1970: 1_796_083_200)
        let stepped = try await AdminTestNode.start(clock: SteppedClock(start: start))
        let (before, moved, back, publishedBefore, publishedAfter) = try await withPeer(stepped.socket, reaching: .node("hub")) { bus in
            let before = try await bus.request(NodeClockRequest(), to: .node("hub"))
            var request = NodeClockRequest()
            request.advanceToUnixMs = 1_796_083_200_000 + 6 * 3_600_000
            let moved = try await bus.request(request, to: .node("hub"))
            request.advanceToUnixMs = 1_796_083_200_000
            let back = try await bus.request(request, to: .node("hub"))
            let publishedBefore = try await bus.request(NodeLoadRequest(), to: .node("hub")).eventsPublished
            try await stepped.node.bus.publish(Tick(sequence: 1))
            let publishedAfter = try await bus.request(NodeLoadRequest(), to: .node("hub")).eventsPublished
            return (before, moved, back, publishedBefore, publishedAfter)
        }
        try await stepped.stop()
        #expect(before.kind == "stepped" && before.nowUnixMs == 1_796_083_200_000 && before.nodeName == "hub")
        #expect(moved.nowUnixMs == 1_796_083_200_000 + 6 * 3_600_000)
        #expect(back.nowUnixMs == moved.nowUnixMs, "never backwards")
        #expect(publishedAfter == publishedBefore + 1)

        let system = try await AdminTestNode.start()
        let (kind, refused) = try await withPeer(system.socket, reaching: .node("hub")) { bus in
            var request = NodeClockRequest()
            request.advanceToUnixMs = 1_796_083_200_000
            let kind = try await bus.request(NodeClockRequest(), to: .node("hub")).kind
            return (kind, await failureCode { try await bus.request(request, to: .node("hub")) })
        }
        try await system.stop()
        #expect(kind == "system")
        #expect(refused == "clock-not-stepped")
    }

    @Test("in process, a request sent to the node's own admin address is answered by it; one sent to another node's is not (service-unavailable), nor is the type's bare address")
    func perInstanceAddressInProcess() async throws {
        let hub = try await AdminTestNode.start()
        let own = await failureCode { try await hub.node.bus.request(NodeDatabasesRequest(), to: .node("hub")) }
        let other = await failureCode { try await hub.node.bus.request(NodeDatabasesRequest(), to: .node("elsewhere")) }
        let bare = await failureCode { try await hub.node.bus.request(NodeDatabasesRequest()) }
        try await hub.stop()
        #expect(own == nil)
        #expect(other == "service-unavailable")
        #expect(bare == "service-unavailable")
    }

    static func rows(in path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }  // safe: a read-only look; a close failure changes nothing
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row") ?? 0 }
    }

    /// The metric families (`# TYPE` lines) of a Prometheus text.
    static func families(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map(String.init))
    }
}
