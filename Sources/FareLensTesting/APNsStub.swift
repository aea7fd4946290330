public import Crypto
public import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A local stand-in for Apple's Push Notification service, for the push
/// tests and benchmark: HTTP/2 over TLS on 127.0.0.1 with a certificate of
/// its own (``certificatePEM``, for the channel's `alerts.apns.trustRoots`),
/// checking each request the way APNs documents it and answering as APNs
/// would:
///
/// - the path is `/3/device/<64 hex digits>` and the method POST;
/// - `authorization: bearer <JWT>` is an ES256 token signed by the provider
///   key the stub was given (verified with jwt-kit), with the expected key
///   id, team id as issuer and an issue time no more than an hour old by the
///   stub's clock (403 MissingProviderToken, InvalidProviderToken,
///   ExpiredProviderToken);
/// - `apns-topic` is the expected bundle id (400 MissingTopic, TopicDisallowed),
///   `apns-push-type` alert or background with `apns-priority` 10 or 5
///   (400 InvalidPushType, BadPriority), `apns-expiration` a whole number
///   (400 BadExpirationDate), `apns-id` a UUID (400 BadMessageId),
///   `apns-collapse-id` at most 64 bytes (400 BadCollapseId);
/// - the body is a JSON object with an `aps` dictionary and at most 4 KB
///   (400 PayloadEmpty, 413 PayloadTooLarge).
///
/// A request that passes is answered by the next scripted ``Reply``
/// (``script(_:)``), or 200. Every request is recorded (``requests``), and
/// the accepted ones in ``delivered``.
public final class APNsStub: Sendable {
    /// How the stub answers a request that passed its checks.
    public enum Reply: Sendable, Equatable {
        case ok
        /// An APNs error: the status, the reason, and for 410 the timestamp (Unix milliseconds).
        case error(status: Int, reason: String, timestamp: Int64? = nil)
        /// RST_STREAM before any answer.
        case resetStream
        /// No answer at all (the client's timeout ends it).
        case hang
    }

    /// One request as the stub saw it.
    public struct Request: Sendable {
        /// The device token from the path.
        public var token: String
        /// Header names lower-cased; the last value of each.
        public var headers: [String: String]
        public var body: Data
        /// What the stub answered (after its checks and the script).
        public var reply: Reply
        /// The answer could not be written: the client had reset the stream
        /// (it gave up waiting), so it never learnt of this reply.
        public var unheard = false
    }

    private struct State {
        var script: [Reply] = []
        var scriptByToken: [String: [Reply]] = [:]
        var requests: [Request] = []
        var listener: (any Channel)?
        var connections: [ObjectIdentifier: any Channel] = [:]
        /// Connections ever accepted: a client multiplexing streams opens one.
        var connectionCount = 0
        var generatedKeyPEM = ""
        /// Tokens whose signature, key id and issuer passed, with their claims.
        var verifiedTokens: [String: (issuer: String, issuedAt: Date)] = [:]
    }

    private let state = Mutex(State())
    private let keys: JWTKeyCollection
    private let keyID: String
    private let teamID: String
    private let topic: String
    private let now: @Sendable () -> Date
    private let serverKey: P256.Signing.PrivateKey
    /// The stub's self-signed certificate, in PEM: trust it to talk to the stub.
    public let certificatePEM: String

    /// A stub accepting provider tokens signed by `providerKey` under `keyID` and `teamID`, for `topic`.
    ///
    /// - Parameter now: the stub's clock, for the provider token's age (default: real time).
    public init(providerKey: P256.Signing.PublicKey, keyID: String, teamID: String, topic: String, now: @escaping @Sendable () -> Date = { Date() }) async throws {
        keys = await JWTKeyCollection().add(ecdsa: try ES256PublicKey(pem: providerKey.pemRepresentation), kid: JWKIdentifier(string: keyID))
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.now = now
        let certificate = try SelfSignedCertificate(commonName: "FareLens test APNs")
        serverKey = certificate.key
        certificatePEM = certificate.certificatePEM
    }

    /// A stub with a provider key of its own, for tests that configure a
    /// node by files: the key's PEM (PKCS #8, as Apple's `.p8`) is
    /// ``providerKeyPEM``.
    public convenience init(keyID: String, teamID: String, topic: String) async throws {
        let key = P256.Signing.PrivateKey()
        try await self.init(providerKey: key.publicKey, keyID: keyID, teamID: teamID, topic: topic)
        generatedKeyPEM = key.pemRepresentation
    }

    /// The provider key made by ``init(keyID:teamID:topic:)``; empty otherwise.
    public var providerKeyPEM: String { state.withLock { $0.generatedKeyPEM } }

    private var generatedKeyPEM: String {
        get { state.withLock { $0.generatedKeyPEM } }
        set { state.withLock { $0.generatedKeyPEM = newValue } }
    }

    /// Answers the next requests that pass the checks with `replies`, in order; 200 after them.
    public func script(_ replies: [Reply]) {
        state.withLock { $0.script.append(contentsOf: replies) }
    }

    /// Answers the next requests to the device `token` with `replies`, in
    /// order, before any of ``script(_:)``'s: for pushes that go out at once.
    /// With `pushType` ("alert" or "background") only pushes of that type
    /// take them.
    public func script(_ replies: [Reply], for token: String, pushType: String? = nil) {
        state.withLock { $0.scriptByToken["\(token)/\(pushType ?? "*")", default: []].append(contentsOf: replies) }
    }

    /// Every request so far, in arrival order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// The requests answered 200 whose answer reached the client.
    public var delivered: [Request] { requests.filter { $0.reply == .ok && !$0.unheard } }

    /// TLS connections accepted so far.
    public var connectionCount: Int { state.withLock { $0.connectionCount } }

    /// Binds 127.0.0.1 on a free port and starts serving.
    ///
    /// - Returns: the base URL, "https://127.0.0.1:PORT".
    public func start() async throws -> String {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        var settings = NIOHTTP2Handler.ConnectionConfiguration()
        // APNs allows 1,000 concurrent streams on a connection (it says so in its SETTINGS frame).
        settings.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
        ]
        let connection = settings
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                            try stream.pipeline.syncOperations.addHandler(APNsStubStreamHandler(stub: self))
                        }
                    }
                    self.track(channel)
                }
            }
        let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        state.withLock { $0.listener = listener }
        guard let port = listener.localAddress?.port else {
            try? await listener.close()
            throw StubHTTPServerError.noPort
        }
        return "https://127.0.0.1:\(port)"
    }

    /// Closes the listener and every connection (streams left hanging end with them).
    public func stop() async {
        let (listener, connections) = state.withLock { state in
            defer { state.listener = nil; state.connections = [:] }
            return (state.listener, Array(state.connections.values))
        }
        for channel in connections { try? await channel.close() }
        try? await listener?.close()
    }

    private func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.connections[id] = channel; $0.connectionCount += 1 }
        channel.closeFuture.whenComplete { [weak self] _ in self?.state.withLock { _ = $0.connections.removeValue(forKey: id) } }
    }

    /// The answer to one whole request: the checks, then the script.
    func answer(method: HTTPMethod, path: String, headers: HTTPHeaders, body: Data) async -> (Reply, index: Int) {
        let request = Self.parts(path: path, headers: headers)
        let refusal: Reply?
        switch knownTokenRefusal(request.fields) {
        case .known(let known): refusal = known ?? checkWithKnownToken(method: method, token: request.token, headers: request.fields, body: body)
        case .unknown: refusal = await checkWithNewToken(method: method, token: request.token, headers: request.fields, body: body)
        }
        return record(token: request.token, fields: request.fields, body: body, refusal: refusal)
    }

    /// The answer to a request whose provider token the stub has verified
    /// before, without waiting (on the stream's event loop); nil when the
    /// token's signature must be verified first (``answer(method:path:headers:body:)``).
    func answerWithKnownToken(method: HTTPMethod, path: String, headers: HTTPHeaders, body: Data) -> (Reply, index: Int)? {
        let request = Self.parts(path: path, headers: headers)
        guard case .known(let refusal) = knownTokenRefusal(request.fields) else { return nil }
        return record(token: request.token, fields: request.fields, body: body, refusal: refusal ?? checkWithKnownToken(method: method, token: request.token, headers: request.fields, body: body))
    }

    /// The device token from the path, and the headers by lower-case name.
    private static func parts(path: String, headers: HTTPHeaders) -> (token: String, fields: [String: String]) {
        let token = path.hasPrefix("/3/device/") ? String(path.dropFirst("/3/device/".count)) : ""
        return (token, Dictionary(headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last }))
    }

    /// The script's answer for a request that passed the checks (or `refusal`), recorded.
    private func record(token: String, fields: [String: String], body: Data, refusal: Reply?) -> (Reply, index: Int) {
        state.withLock { state in
            let reply: Reply
            if let refusal {
                reply = refusal
            } else {
                reply = Self.scripted(token: token, pushType: fields["apns-push-type"] ?? "", in: &state)
            }
            state.requests.append(Request(token: token, headers: fields, body: body, reply: reply))
            return (reply, state.requests.count - 1)
        }
    }

    private static func scripted(token: String, pushType: String, in state: inout State) -> Reply {
        for key in ["\(token)/\(pushType)", "\(token)/*"] {
            if let next = state.scriptByToken[key]?.first {
                state.scriptByToken[key]?.removeFirst()
                return next
            }
        }
        return state.script.isEmpty ? .ok : state.script.removeFirst()
    }

    /// Whether the request's provider token was verified before (its
    /// signature, issuer and header are checked once, as APNs sees one token
    /// for up to an hour), and if so its refusal for the token's age, or nil.
    private enum TokenCheck {
        case known(Reply?)
        case unknown
    }

    private func knownTokenRefusal(_ headers: [String: String]) -> TokenCheck {
        guard let authorization = headers["authorization"], authorization.lowercased().hasPrefix("bearer ") else { return .unknown }
        let jwt = String(authorization.dropFirst("bearer ".count))
        guard let known = state.withLock({ $0.verifiedTokens[jwt] }) else { return .unknown }
        return .known(now().timeIntervalSince(known.issuedAt) <= 3600 ? nil : .error(status: 403, reason: "ExpiredProviderToken"))
    }

    /// The answer to request `index` could not be written.
    func markUnheard(_ index: Int) {
        state.withLock { $0.requests[index].unheard = true }
    }

    /// A JWT's header members (already verified by jwt-kit: read for `kid` and `alg` only).
    private static func header(of jwt: String) -> [String: String]? {
        guard let first = jwt.split(separator: ".").first else { return nil }
        var base64 = first.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDecoder().decode([String: String].self, from: data)
    }

    /// Every check of a request whose provider token is not known yet: the token's signature, issuer,
    /// header and age (then it is known), then the checks of every request.
    private func checkWithNewToken(method: HTTPMethod, token: String, headers: [String: String], body: Data) async -> Reply? {
        if let early = checkBeforeToken(method: method, token: token, headers: headers) { return early }
        guard let authorization = headers["authorization"], authorization.lowercased().hasPrefix("bearer ") else {
            return .error(status: 403, reason: "MissingProviderToken")
        }
        struct Claims: JWTPayload {
            var iss: IssuerClaim
            var iat: IssuedAtClaim
            func verify(using algorithm: some JWTAlgorithm) async throws {}
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        do {
            let claims = try await keys.verify(jwt, as: Claims.self)
            guard claims.iss.value == teamID, Self.header(of: jwt) == ["alg": "ES256", "kid": keyID, "typ": "JWT"] || Self.header(of: jwt) == ["alg": "ES256", "kid": keyID] else {
                return .error(status: 403, reason: "InvalidProviderToken")
            }
            let age = now().timeIntervalSince(claims.iat.value)
            guard age <= 3600 else { return .error(status: 403, reason: "ExpiredProviderToken") }
            state.withLock { $0.verifiedTokens[jwt] = (claims.iss.value, claims.iat.value) }
        } catch {
            return .error(status: 403, reason: "InvalidProviderToken")
        }
        return checkAfterToken(headers: headers, body: body)
    }

    /// The checks of a request whose provider token is known (``knownTokenRefusal(_:)``).
    private func checkWithKnownToken(method: HTTPMethod, token: String, headers: [String: String], body: Data) -> Reply? {
        checkBeforeToken(method: method, token: token, headers: headers) ?? checkAfterToken(headers: headers, body: body)
    }

    private func checkBeforeToken(method: HTTPMethod, token: String, headers: [String: String]) -> Reply? {
        guard method == .POST else { return .error(status: 405, reason: "MethodNotAllowed") }
        guard token.utf8.count == 64, token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) }) else {
            return .error(status: 400, reason: "BadDeviceToken")
        }
        return nil
    }

    private func checkAfterToken(headers: [String: String], body: Data) -> Reply? {
        guard let topic = headers["apns-topic"] else { return .error(status: 400, reason: "MissingTopic") }
        guard topic == self.topic else { return .error(status: 400, reason: "TopicDisallowed") }
        let type = headers["apns-push-type"]
        guard type == "alert" || type == "background" else { return .error(status: 400, reason: "InvalidPushType") }
        // APNs: 10, 5 or 1 for an alert; a background push must not be 10.
        if let priority = headers["apns-priority"], !(type == "alert" ? ["10", "5", "1"] : ["5", "1"]).contains(priority) {
            return .error(status: 400, reason: "BadPriority")
        }
        if let expiration = headers["apns-expiration"], Int64(expiration) == nil { return .error(status: 400, reason: "BadExpirationDate") }
        if let id = headers["apns-id"], UUID(uuidString: id) == nil { return .error(status: 400, reason: "BadMessageId") }
        if let collapse = headers["apns-collapse-id"], collapse.utf8.count > 64 { return .error(status: 400, reason: "BadCollapseId") }
        guard body.count <= 4096 else { return .error(status: 413, reason: "PayloadTooLarge") }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], object["aps"] is [String: Any] else {
            return .error(status: 400, reason: "PayloadEmpty")
        }
        return nil
    }
}
