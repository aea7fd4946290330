import AsyncHTTPClient
import FareLensTesting
import Foundation
import GRDB
import Testing

/// `farelensctl metrics`, `backup` and `log-level` against a mesh split in
/// two real `farelens` processes, and `/metrics` scraped over HTTP.
@Suite("Node admin across processes", .serialized)
struct NodeAdminProcessTests {
    /// A hub (`hubServices`: search and scoring unless given) with `/metrics` on a system-chosen port and a spoke (subscription), both joined.
    static func startSplit(hubServices: String = "search,scoring") async throws -> (hub: NodeProcess, spoke: NodeProcess, socket: String, metricsPort: Int) {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hub = try NodeProcess.start(["--services", hubServices, "--node-name", "hub", "--data-dir", directory + "/hub", "--listen", socket,
                                         "--log-level", "info", "--metrics-listen", "127.0.0.1:0"])
        do {
            try await hub.waitForOutput(containing: "farelens ready")
            let port = try #require(hub.output.get().firstMatch(of: /http:\/\/127\.0\.0\.1:([0-9]+)\/metrics/).flatMap { Int($0.1) })
            let spoke = try NodeProcess.start(["--services", "subscription", "--node-name", "spoke", "--data-dir", directory + "/spoke", "--connect", socket, "--log-level", "info"])
            do {
                try await spoke.waitForOutput(containing: "farelens ready")
                // Logged once the hub's WELCOME arrived, so the hub routes to it.
                try await spoke.waitForOutput(containing: "joined the hub")
                return (hub, spoke, socket, port)
            } catch {
                spoke.kill()
                throw error
            }
        } catch {
            hub.kill()
            throw error
        }
    }

    @Test("farelensctl metrics shows both nodes of a split mesh, and the hub's text has the same request count as its /metrics scraped over HTTP")
    func metricsOfBothNodes() async throws {
        let (hub, spoke, socket, port) = try await Self.startSplit(hubServices: "search,scoring,alerts")
        defer { spoke.kill(); hub.kill() }
        for _ in 0 ..< 2 {
            let change = try await farelensctl(["--socket", socket, "log-level", "info", "--node", "hub"])
            #expect(change.status == 0, "\(change.stderr)")
        }
        // The search service's own figures: the same search twice, a miss then a hit.
        let date = ISO8601DateFormatter.string(from: Date().addingTimeInterval(20 * 86_400), timeZone: .gmt, formatOptions: [.withFullDate])
        for _ in 0 ..< 2 {
            let search = try await farelensctl(["--socket", socket, "search", "LIS", "JFK", date, "--json"])
            #expect(search.status == 0, "\(search.stderr)")
        }
        let line = #"farelens_bus_requests_total{type="farelens.admin.v1.NodeLogLevelRequest",address="admin.node.hub"} 2"#
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let scraped: String
        do {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
            scraped = String(buffer: try await response.body.collect(upTo: 10 << 20))
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        #expect(scraped.contains(line))
        #expect(scraped.contains("farelens_search_cache_misses_total 1\n") && scraped.contains("farelens_search_cache_hits_total 1\n"))
        // The alerts service's figures are there from its start, before any changes them.
        #expect(scraped.contains("farelens_alerts_events_set_aside_total 0\n"))
        #expect(scraped.contains(#"farelens_alerts_decided_total{decision="sent"} 0"#))
        let all = try await farelensctl(["--socket", socket, "metrics"])
        #expect(all.status == 0, "\(all.stderr)")
        // One exposition, each sample labelled with its node.
        #expect(all.stdout.contains(line.replacingOccurrences(of: "{type=", with: #"{node="hub",type="#)))
        // Per connection, each end by the other's name: the spoke's towards the hub, the hub's from the spoke.
        #expect(all.stdout.contains(#"farelens_wire_frames_sent_total{node="spoke",peer="hub"}"#))
        #expect(scraped.contains(#"farelens_wire_frames_received_total{peer="spoke"}"#))
        #expect(scraped.contains(#"farelens_wire_payload_bytes_sent_total{peer="admin-clients"}"#))
        let json = try await farelensctl(["--socket", socket, "metrics", "--json"])
        struct Report: Decodable { struct Entry: Decodable { let node: String; let text: String }; let nodes: [Entry] }
        let report = try JSONDecoder().decode(Report.self, from: Data(json.stdout.utf8))
        #expect(report.nodes.map(\.node) == ["hub", "spoke"])
    }

    @Test("farelensctl backup DIR backs up every database of both nodes into DIR/<node>/<service>.sqlite with progress; a relative DIR is refused by name")
    func backupBothNodes() async throws {
        let (hub, spoke, socket, _) = try await Self.startSplit()
        defer { spoke.kill(); hub.kill() }
        let directory = socket.replacingOccurrences(of: "/hub.sock", with: "/backup")
        let backup = try await farelensctl(["--socket", socket, "backup", directory])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout.contains("backing up hub/scoring (1/3)… "))
        #expect(backup.stdout.contains("backing up spoke/subscription (3/3)… "))
        for file in ["hub/scoring", "hub/search", "spoke/subscription"] {
            let queue = try DatabaseQueue(path: "\(directory)/\(file).sqlite")
            let runs = try await queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM service_run") }
            #expect(runs == 1, "\(file): the node's run is recorded in the copy")
        }
        let relative = try await farelensctl(["--socket", socket, "backup", "some/dir", "--node", "spoke"])
        #expect(relative.status == 1)
        #expect(relative.stderr.contains("[relative-path]"), "\(relative.stderr)")
    }

    @Test("a node at info logs no debug line; after farelensctl log-level debug it does; an invalid level is refused listing the valid ones")
    func logLevelOfARunningNode() async throws {
        let (hub, spoke, socket, _) = try await Self.startSplit()
        defer { spoke.kill(); hub.kill() }
        let invalid = try await farelensctl(["--socket", socket, "log-level", "loud", "--node", "spoke"])
        #expect(invalid.status == 1)
        #expect(invalid.stderr.contains("[invalid-level]") && invalid.stderr.contains("trace, debug, info, notice, warning, error, critical"), "\(invalid.stderr)")
        let change = try await farelensctl(["--socket", socket, "log-level", "debug", "--node", "spoke", "--json"])
        #expect(change.status == 0, "\(change.stderr)")
        #expect(change.stdout.contains(#""previous_level" : "info""#), "\(change.stdout)")
        #expect(!spoke.output.get().contains(" debug "), "no debug line before the change")
        // A graceful shutdown logs "draining" and "service stopped" at debug.
        try await spoke.terminate()
        #expect(spoke.output.get().contains(" debug "), "\(spoke.output.get())")
    }
}
