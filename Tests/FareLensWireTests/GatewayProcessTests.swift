import AsyncHTTPClient
import FareLensTesting
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The gateway in a process of its own, reaching the six services in another over the socket.
@Suite("Gateway in its own process")
struct GatewayProcessTests {
    static let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    static func send(_ method: HTTPMethod, _ url: String, token: String? = nil, json: String? = nil) async throws -> (status: Int, body: [String: Any], headers: HTTPHeaders) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: json))
        }
        let response = try await client.execute(request, timeout: .seconds(20))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let body = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView))) as? [String: Any] ?? [:]
        return (Int(response.status.code), body, response.headers)
    }

    /// The port a gateway process printed in its `gateway listening` line.
    static func port(of process: ChildProcess) async throws -> Int {
        try await process.waitForOutput(containing: "gateway listening")
        let line = try #require(process.output.get().split(separator: "\n").last { $0.contains("gateway listening") })
        let match = try #require(line.firstMatch(of: /url=http:\/\/127\.0\.0\.1:(\d+)/))
        return try #require(Int(match.1))
    }

    /// Sends until the answer is neither 503 (the gateway's node joining the hub, or the hub coming back) nor 429,
    /// within a bound. Paced as a client heeding Retry-After would be: every poll spends a token of the user's
    /// bucket (60, and 2 a second), so a poll every few milliseconds emptied it while the hub restarted.
    static func sendOnceReachable(_ method: HTTPMethod, _ url: String, token: String? = nil, json: String? = nil) async throws -> (status: Int, body: [String: Any], headers: HTTPHeaders) {
        var last: (status: Int, body: [String: Any], headers: HTTPHeaders)?
        try await waitUntil("\(url) answers other than 503", limit: .seconds(30)) {
            last = try? await send(method, url, token: token, json: json)
            if let status = last?.status, status != 503, status != 429 { return true }
            try? await Task.sleep(for: .milliseconds(300))  // safe: the pace of a polling client, bounded by waitUntil's limit
            return false
        }
        return try #require(last)
    }

    @Test("sign up and use the API through a gateway process; kill -9 of the gateway keeps sessions; the services' process away is 503 with Retry-After, then back")
    func gatewayAlone() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        let hubArguments = ["serve", "--services", "analytics,subscription,search,scoring,watchlist,alerts", "--data-dir", directory + "/hub", "--listen", socket, "--log-level", "error"]
        let gatewayArguments = ["serve", "--services", "gateway", "--data-dir", directory + "/edge", "--connect", socket, "--http-listen", "127.0.0.1:0", "--log-level", "notice"]
        let fastHashes = ["FARELENS_SUBSCRIPTION_BCRYPT_COST": "4"]
        var hub = try ChildProcess.start(Binaries.farelens, hubArguments, environment: fastHashes)
        defer { hub.kill() }
        try await hub.waitForOutput(containing: "farelens ready")
        var gateway = try ChildProcess.start(Binaries.farelens, gatewayArguments)
        defer { gateway.kill() }
        var base = "http://127.0.0.1:\(try await Self.port(of: gateway))"

        let signUp = try await Self.sendOnceReachable(.POST, base + "/v1/auth/signup", json: #"{"email":"ana@example.com","password":"correct horse battery","time_zone":"Europe/Lisbon"}"#)
        #expect(signUp.status == 201, "\(signUp.body)")
        let token = try #require(signUp.body["access_token"] as? String)
        let created = try await Self.send(.POST, base + "/v1/me/watchlists", token: token, json: #"{"origin":"LIS","destination":"OPO","dates":{"flexible":{}}}"#)
        #expect(created.status == 201, "\(created.body)")

        gateway.kill()
        gateway = try ChildProcess.start(Binaries.farelens, gatewayArguments)
        base = "http://127.0.0.1:\(try await Self.port(of: gateway))"
        let after = try await Self.sendOnceReachable(.GET, base + "/v1/me/watchlists", token: token)
        #expect(after.status == 200 && (after.body["watchlists"] as? [Any])?.count == 1, "the session outlived a SIGKILL of the gateway: \(after.body)")

        hub.kill()
        let away = try await Self.send(.GET, base + "/v1/me", token: token)
        #expect(away.status == 503 && away.headers.first(name: "Retry-After") != nil, "\(away.body)")
        #expect(away.body["code"] as? String == "service-unavailable")
        hub = try ChildProcess.start(Binaries.farelens, hubArguments, environment: fastHashes)
        let back = try await Self.sendOnceReachable(.GET, base + "/v1/me", token: token)
        #expect(back.status == 200, "\(back.body)")
    }

    @Test("SIGINT stops a node serving the gateway gracefully: exit 0, and not one error line (Hummingbird reported a cancelled server at error level)")
    func gracefulStopLogsNoError() async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let node = try ChildProcess.start(Binaries.farelens, ["serve", "--data-dir", directory + "/node", "--http-listen", "127.0.0.1:0", "--log-level", "info"])
        defer { node.kill() }
        let base = "http://127.0.0.1:\(try await Self.port(of: node))"
        // A connection the server has served, still open (the client keeps it alive) when the stop comes.
        #expect(try await Self.send(.GET, base + "/healthz").status == 200)
        #expect(try await Self.send(.GET, base + "/v1/nothing").status == 404)
        Foundation.kill(node.pid, SIGINT)
        try await waitUntil("the node exited", limit: .seconds(30)) { !node.process.isRunning }
        #expect(node.process.terminationStatus == 0, "\(node.output.get())")
        let errors = node.output.get().split(separator: "\n").filter { $0.contains(" error ") || $0.contains(" critical ") }
        #expect(errors.isEmpty, "\(errors)")
        #expect(node.output.get().contains("gateway listening"))
    }
}
