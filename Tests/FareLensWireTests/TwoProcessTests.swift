import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// The real executables, split across two processes over a real socket.
@Suite("Two processes", .serialized)
struct TwoProcessTests {
    @Test("two farelens processes serve all six services between them; kill -9 of either recovers without operator action")
    func splitMeshSurvivesKills() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hubArguments = ["serve", "--services", "search,scoring", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"]
        let spokeArguments = ["serve", "--services", "watchlist,alerts,subscription,analytics", "--data-dir", directory + "/spoke", "--connect", socket, "--log-level", "error"]
        var hub = try ChildProcess.start(Binaries.farelens, hubArguments)
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")
        var spoke = try ChildProcess.start(Binaries.farelens, spokeArguments)
        defer { spoke.kill() }
        try await spoke.waitForOutput(containing: "farelens ready")

        var status = try await meshStatus(socket) { $0.count == 2 && $0.allSatisfy(\.connected) }
        #expect(Set(status.flatMap(\.services)) == ["search", "scoring", "watchlist", "alerts", "subscription", "analytics"])
        #expect(Set(status.map(\.pid)) == [hub.pid, spoke.pid])

        spoke.kill()
        _ = try await meshStatus(socket) { nodes in nodes.contains { $0.role == "spoke" && !$0.connected } }
        spoke = try ChildProcess.start(Binaries.farelens, spokeArguments)
        status = try await meshStatus(socket) { nodes in nodes.count == 2 && nodes.allSatisfy(\.connected) }
        #expect(status.contains { $0.role == "spoke" && $0.pid == spoke.pid })

        hub.kill()
        hub = try ChildProcess.start(Binaries.farelens, hubArguments)
        status = try await meshStatus(socket) { nodes in nodes.count == 2 && nodes.allSatisfy(\.connected) }
        #expect(status.contains { $0.role == "hub" && $0.pid == hub.pid })
        #expect(Set(status.flatMap(\.services)).count == 6)
    }

    @Test("farelensctl airports and search reach the search service two hops away; a failed validation exits 1 naming the field")
    func ctlSearchAcrossProcesses() async throws {
        let nodes = try await SplitNodes.start(hub: "watchlist,alerts", spoke: "search")
        defer { nodes.kill() }
        let socket = nodes.socket

        let airports = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "--json", "airports", "heathrow"])  // global options first
        #expect(airports.status == 0 && airports.stdout.contains("\"code\" : \"LHR\""))

        let date = Self.isoDate(daysFromNow: 30)
        let search = try await ChildProcess.run(Binaries.farelensctl, ["search", "LIS", "LON", date, "--adults", "2", "--socket", socket, "--json"])
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.stdout.contains("\"simulated\" : true") && search.stdout.contains("\"total_minor_units\""))

        let invalid = try await ChildProcess.run(Binaries.farelensctl, ["search", "LIS", "LIS", date, "--socket", socket])
        #expect(invalid.status == 1)
        #expect(invalid.stderr == "farelensctl: error: search: remote [invalid-field]: destination: equals origin (LIS)\n")
    }

    @Test("farelensctl events tail prints a search's FareObserved as one JSON object per line, and --seconds ends a quiet watch")
    func ctlEventsTail() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", "search", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"])
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")

        let quiet = try await ChildProcess.run(Binaries.farelensctl, ["events", "tail", "alerts.alert-delivered", "--seconds", "1", "--socket", socket])
        #expect(quiet.status == 0, "a watch with no events ends after --seconds: \(quiet.stderr)")
        #expect(quiet.stdout.isEmpty)

        let tail = try ChildProcess.start(Binaries.farelensctl, ["events", "tail", "search.fare-observed", "--count", "2", "--json", "--socket", socket])
        defer { tail.kill() }
        // Searches until the watcher has its two events (the first may come before it joined).
        for day in 20 ... 60 where tail.process.isRunning {
            let search = try await ChildProcess.run(Binaries.farelensctl, ["search", "LIS", "LON", Self.isoDate(daysFromNow: day), "--socket", socket, "--json"])
            #expect(search.status == 0, "\(search.stderr)")
            try? await waitUntil("the watcher took the offers", limit: .milliseconds(200)) { !tail.process.isRunning }
        }
        try await waitUntil("the watch ended after 2 events") { !tail.process.isRunning }
        #expect(tail.process.terminationStatus == 0)
        let lines = tail.output.get().split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["topic"] as? String == "search.fare-observed")
            #expect((object?["id"] as? String)?.contains("/") == true, "the event id, publisher/sequence")
            #expect(!line.contains(#"\/"#), "a slash is not escaped: \(line)")
            // The .proto field names, like every other --json output: offer_id, not protobuf's default offerId.
            #expect((object?["event"] as? [String: Any])?["offer_id"] != nil, "\(line)")
            #expect((object?["event"] as? [String: Any])?["offerId"] == nil, "\(line)")
        }
    }

    @Test("farelensctl users create and show reach the subscription service, which checks airports with the search service in another process")
    func ctlUsers() async throws {
        let nodes = try await SplitNodes.start(hub: "subscription", spoke: "search")
        defer { nodes.kill() }
        let socket = nodes.socket

        let created = try await ChildProcess.run(Binaries.farelensctl, ["users", "create", "--email", "a@example.com", "--time-zone", "America/New_York", "--home-airport", "JFK", "--json", "--socket", socket])
        #expect(created.status == 0, "\(created.stderr)")
        let user = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any]
        #expect(user?["tier"] as? String == "trial")
        let id = try #require(user?["id"] as? String)
        let shown = try await ChildProcess.run(Binaries.farelensctl, ["users", "show", id, "--socket", socket])
        #expect(shown.status == 0 && shown.stdout.contains("a@example.com") && shown.stdout.contains("unlimited"))

        let taken = try await ChildProcess.run(Binaries.farelensctl, ["users", "create", "--email", "A@example.com", "--time-zone", "UTC", "--socket", socket])
        #expect(taken.status == 1)
        #expect(taken.stderr == "farelensctl: error: subscription: remote [email-taken]: email: 'a@example.com' belongs to another user\n")
        let badAirport = try await ChildProcess.run(Binaries.farelensctl, ["users", "create", "--email", "b@example.com", "--time-zone", "UTC", "--home-airport", "QQQ", "--socket", socket])
        #expect(badAirport.stderr == "farelensctl: error: subscription: remote [unknown-airport]: home_airport: 'QQQ' is not a known IATA airport or metro code\n")
    }

    @Test("kill -9 of a hub process holding durable events for an away node loses none of them")
    func hubKillKeepsDurableEvents() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hubArguments = ["serve", "--services", "search", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"]
        var hub = try ChildProcess.start(Binaries.farelens, hubArguments)
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")

        // This test process joins as a node that wants search.fare-observed, then goes away.
        let listener = makeNodeBus("fare-listener")
        listener.registerEventTypes(MessageCatalog.events)
        let first = listener.subscribe(FareObserved.self)
        let (_, firstTask) = try await startSpoke(listener, fastBridge(socket), name: "fare-listener")
        firstTask.cancel()
        _ = await firstTask.result
        withExtendedLifetime(first) {}
        _ = try await meshStatus(socket) { nodes in nodes.contains { $0.node == "fare-listener" && !$0.connected } }

        let search = try await ChildProcess.run(Binaries.farelensctl, ["search", "LIS", "LON", Self.isoDate(daysFromNow: 20), "--socket", socket, "--json"])
        #expect(search.status == 0, "\(search.stderr)")
        let offers = try JSONDecoder().decode(SearchOffers.self, from: Data(search.stdout.utf8)).offers.map(\.offer_id)
        #expect(!offers.isEmpty)
        // The search answers first and publishes its fares after (a DeferredPublisher), so the
        // hub holds them only once its status says so; killing it earlier would test nothing.
        _ = try await meshStatus(socket) { nodes in
            nodes.contains { $0.node == "fare-listener" && $0.pending_durable_events == UInt64(offers.count) }
        }

        hub.kill()
        hub = try ChildProcess.start(Binaries.farelens, hubArguments)
        try await hub.waitForOutput(containing: "farelens ready")
        let back = makeNodeBus("fare-listener")
        back.registerEventTypes(MessageCatalog.events)
        let subscription = back.subscribe(FareObserved.self)
        let (_, backTask) = try await startSpoke(back, fastBridge(socket), name: "fare-listener")
        let received = try await firstEvents(offers.count, of: subscription)
        #expect(received.map(\.offerID) == offers)
        backTask.cancel()
    }

    static func isoDate(daysFromNow days: Int) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }

    @Test("farelensctl explains a missing socket in one line and exits non-zero")
    func ctlMissingSocket() async throws {
        let result = try await ChildProcess.run(Binaries.farelensctl, ["status", "--socket", "/tmp/no-such-farelens.sock"])
        #expect(result.status == 1)
        #expect(result.stderr == "farelensctl: error: socket /tmp/no-such-farelens.sock: no such socket (is a node listening?)\n")
    }

    @Test(
        "farelensctl on its default socket, where none listens, says so and how a node started with --data-dir is reached; field --socket with --json",
        .enabled(if: ProcessInfo.processInfo.environment["FARELENS_SOCKET"] == nil && ProcessInfo.processInfo.environment["FARELENS_BRIDGE_SOCKET"] == nil))
    func ctlDefaultSocketMissing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flt-ctl-\(UInt32.random(in: 0 ... .max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // No ./data here, and (the trait above) no variable naming a socket.
        let plain = try await FinishedProcess.run(Binaries.farelensctl, ["status"], directory: directory, limit: .seconds(20))
        #expect(plain.status == 1)
        #expect(plain.stderr == "farelensctl: error: socket ./data/farelens.sock: no such socket (is a node listening?); that is the default: a node started with --data-dir DIR listens at DIR/farelens.sock (pass --socket PATH or set FARELENS_SOCKET)\n")
        let json = try await FinishedProcess.run(Binaries.farelensctl, ["status", "--json"], directory: directory, limit: .seconds(20))
        let error = (try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "socket-unavailable")
        #expect(error?["field"] as? String == "--socket")
    }

    @Test("farelensctl takes --socket before the subcommand, and FARELENS_SOCKET when none is given; the option wins over the variable")
    func ctlSocketChoice() async throws {
        func socketTried(_ arguments: [String], _ environment: [String: String] = [:]) async throws -> String {
            let result = try await ChildProcess.run(Binaries.farelensctl, arguments, environment: environment)
            #expect(result.status == 1)
            // With --json the error is a JSON object on stdout; its message is the same line.
            guard arguments.contains("--json") else { return result.stderr }
            let error = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["error"] as? [String: Any]
            return "farelensctl: error: \(error?["message"] as? String ?? result.stdout)\n"
        }
        let missing = { (name: String) in "farelensctl: error: socket /tmp/\(name).sock: no such socket (is a node listening?)\n" }
        #expect(try await socketTried(["--socket", "/tmp/no-such-a.sock", "status"]) == missing("no-such-a"))
        #expect(try await socketTried(["--timeout-ms=700", "--socket=/tmp/no-such-a.sock", "--json", "alerts", "history", "--user", "u-1"]) == missing("no-such-a"))
        #expect(try await socketTried(["status"], ["FARELENS_SOCKET": "/tmp/no-such-b.sock"]) == missing("no-such-b"))
        #expect(try await socketTried(["status", "--socket", "/tmp/no-such-a.sock"], ["FARELENS_SOCKET": "/tmp/no-such-b.sock"]) == missing("no-such-a"))
    }
}

/// Polls `farelensctl status --json` until `done` holds for its nodes.
func meshStatus(_ socket: String, until done: @escaping ([StatusNode]) -> Bool) async throws -> [StatusNode] {
    var last: [StatusNode] = []
    try await waitUntil("farelensctl status matches (last: \(last))", limit: .seconds(30)) {
        guard let result = try? await ChildProcess.run(Binaries.farelensctl, ["status", "--socket", socket, "--json"]),
              // 3: a node or service is away (status's health-check exit status), which some waits wait for.
              result.status == 0 || result.status == 3,
              let decoded = try? JSONDecoder().decode(StatusReport.self, from: Data(result.stdout.utf8))
        else { return false }
        last = decoded.nodes
        return done(decoded.nodes)
    }
    return last
}

struct StatusReport: Decodable { let nodes: [StatusNode] }
struct SearchOffers: Decodable {
    struct Offer: Decodable { let offer_id: String }  // the JSON key, as farelensctl prints it
    let offers: [Offer]
}
struct StatusNode: Decodable, CustomStringConvertible {
    let node: String
    let pid: Int32
    let role: String
    let connected: Bool
    let services: [String]
    let pending_durable_events: UInt64  // the JSON key, as farelensctl prints it
    var description: String { "\(node)(\(pid),\(role),\(connected ? "up" : "away, \(pending_durable_events) waiting"))" }
}

/// The built executables next to the test bundle (`swift build --build-tests` builds them).
/// Two `farelens` processes: a hub hosting `hubServices` and a spoke hosting
/// `spokeServices`, both ready and joined. Kill them with `kill()` (tests
/// do, in `defer`).
struct SplitNodes {
    let socket: String
    let hub: ChildProcess
    let spoke: ChildProcess

    static func start(hub hubServices: String, spoke spokeServices: String) async throws -> SplitNodes {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hub = try ChildProcess.start(Binaries.farelens, ["serve", "--services", hubServices, "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"])
        do {
            try await hub.waitForOutput(containing: "farelens ready")
            let spoke = try ChildProcess.start(Binaries.farelens, ["serve", "--services", spokeServices, "--data-dir", directory + "/spoke", "--connect", socket, "--log-level", "error"])
            do {
                try await spoke.waitForOutput(containing: "farelens ready")
                _ = try await meshStatus(socket) { nodes in nodes.count == 2 && nodes.allSatisfy(\.connected) }
                return SplitNodes(socket: socket, hub: hub, spoke: spoke)
            } catch {
                spoke.kill()
                throw error
            }
        } catch {
            hub.kill()
            throw error
        }
    }

    func kill() {
        spoke.kill()
        hub.kill()
    }
}

enum Binaries {
    static let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
    static var farelens: String { directory + "/farelens" }
    static var farelensctl: String { directory + "/farelensctl" }
    static var testNode: String { directory + "/farelens-test-node" }
}

/// A child process with its output collected off the concurrency pool.
struct ChildProcess {
    let process: Process
    let output: Locked<String>
    var pid: Int32 { process.processIdentifier }

    static func start(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        guard FileManager.default.isExecutableFile(atPath: path) else { throw WaitTimedOut(what: "\(path) to exist (run swift build --build-tests)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        // No market sweep: its fares would mix with the ones a test waits for.
        process.environment = ProcessInfo.processInfo.environment.merging(["FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS": "0"].merging(environment) { _, new in new }) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = PipeOutput.collect(pipe)
        return ChildProcess(process: process, output: output)
    }

    func waitForOutput(containing text: String, limit: Duration = .seconds(30)) async throws {
        do {
            try await waitUntil("output contains '\(text)'", limit: limit) { output.get().contains(text) }
        } catch {
            // The output when it gave up, not when it started waiting.
            throw WaitTimedOut(what: "output contains '\(text)' (output: \(output.get()))")
        }
    }

    /// SIGKILL: no graceful shutdown, as a crash.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitForExit()
    }

    /// Runs to completion, returning exit status and output. A child still
    /// running after `limit` is killed (a bound against hangs: its status is then 137-ish, never 0).
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], limit: Duration = .seconds(20)
    ) async throws -> FinishedProcess {
        try await FinishedProcess.run(path, arguments, environment: environment, limit: limit)
    }
}
