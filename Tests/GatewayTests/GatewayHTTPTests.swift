import Configuration
import FareLensGateway
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensTesting
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@Suite("Gateway: HTTP done properly", .serialized)
struct GatewayHTTPTests {
    @Test("the feed and alert history carry an ETag; If-None-Match with it is 304 with no body, and a changed history gets a new one")
    func etags() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            for path in ["/v1/me/deals", "/v1/me/alerts"] {
                let first = try await api.send(.GET, path, token: token)
                let tag = try #require(first.headers.first(name: "ETag"), "\(path)")
                #expect(tag.hasPrefix("\"") && tag.count == 34)
                let again = try await api.send(.GET, path, token: token, headers: [("If-None-Match", tag)])
                #expect(again.status == 304 && again.bytes.isEmpty && again.headers.first(name: "ETag") == tag, "\(path)")
                let other = try await api.send(.GET, path, token: token, headers: [("If-None-Match", "\"0000\"")])
                #expect(other.status == 200 && !other.bytes.isEmpty)
            }
            let limited = try await api.send(.GET, "/v1/me/alerts?limit=1", token: token)
            #expect(limited.headers.first(name: "ETag") == (try await api.send(.GET, "/v1/me/alerts", token: token)).headers.first(name: "ETag"),
                "the same body, the same tag")
        }
    }

    @Test("a long JSON body is gzipped for a client that accepts gzip, and only for it")
    func compression() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let plain = try await api.send(.GET, "/v1/airports?q=san&limit=50", token: token)
            #expect(plain.status == 200 && plain.headers.first(name: "Content-Encoding") == nil && plain.bytes.count >= 1024, "\(plain.bytes.count)")
            let zipped = try await api.send(.GET, "/v1/airports?q=san&limit=50", token: token, headers: [("Accept-Encoding", "gzip")])
            #expect(zipped.headers.first(name: "Content-Encoding") == "gzip" && zipped.bytes.prefix(2) == [0x1f, 0x8b])
            #expect(zipped.bytes.count < plain.bytes.count / 2, "\(zipped.bytes.count) of \(plain.bytes.count)")
            let refused = try await api.send(.GET, "/v1/airports?q=san&limit=50", token: token, headers: [("Accept-Encoding", "gzip;q=0")])
            #expect(refused.headers.first(name: "Content-Encoding") == nil)
        }
    }

    @Test("a traceparent's trace id is the bus trace the request runs under (X-Trace-ID); a malformed one gets a new trace; a request id is echoed")
    func traceContext() async throws {
        try await GatewayHarness.with(.split) { _, api in
            let trace = "4bf92f3577b34da6a3ce929d0e0e4736"
            let reply = try await api.send(.POST, "/v1/auth/signin", json: #"{"email":"x@example.com","password":"whatever1234"}"#, headers: [
                ("traceparent", "00-\(trace)-00f067aa0ba902b7-01"), ("X-Request-ID", "client-req-42"),
            ])
            #expect(reply.headers.first(name: "X-Trace-ID") == trace)
            #expect(reply.headers.first(name: "X-Request-ID") == "client-req-42")
            let malformed = try await api.send(.GET, "/healthz", headers: [("traceparent", "00-\(trace.uppercased())-00f067aa0ba902b7-01")])
            #expect(malformed.headers.first(name: "X-Trace-ID").map { $0 != trace && $0.count == 32 } == true)
        }
    }

    @Test("a node whose gateway cannot listen (the port is taken) stops with an error naming gateway.listen")
    func portInUse() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let squatter = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(squatter.localAddress?.port)
        defer { squatter.close(promise: nil) }
        var configuration = NodeConfiguration()
        configuration.services = "gateway"
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-squat-\(UUID().uuidString)").path
        configuration.reader = ConfigReader(provider: InMemoryProvider(values: [
            AbsoluteConfigKey(ConfigKey("gateway.listen")): ConfigValue(.string("127.0.0.1:\(port)"), isSecret: false)
        ]))
        var logger = Logger(label: "squat")
        logger.logLevel = .critical
        let node = try Node(configuration: configuration, catalog: ServiceCatalog.all, logger: logger)
        let failure = await #expect(throws: (any Error).self) {
            try await withTimeLimit("the node stopped") { try await node.run(handleSignals: false) }
        }
        #expect("\(failure.map { "\($0)" } ?? "")".contains("the gateway cannot listen on 127.0.0.1:\(port) (gateway.listen, --http-listen): the address is in use"))
        // The bind's own error is kept as the cause, not only its text.
        let listen = try #require(failure as? ListenError, "\(String(describing: failure))")
        #expect((listen.underlying as? IOError)?.errnoCode == EADDRINUSE, "\(String(describing: listen.underlying))")
    }
}
