import AlertsService
import AsyncHTTPClient
import BenchmarkHarness
import Crypto
import FareLensMessages
import FareLensTesting
import Foundation
import JWTKit
import NIOCore
import NIOSSL
import Synchronization

// Push (issue #62): pushes per second from the APNs channel to the local
// APNs stub over one HTTP/2 connection with 100 streams in flight, beside
// the floor — the same stub answering a trivial HTTP/2 client (the same
// AsyncHTTPClient posting one fixed request with a fixed provider token) —
// measured in the same run, rounds alternating. Target: ≥ 5,000 pushes/s
// and ≥ 50% of the floor. Both pay the stub's own work (it verifies every
// provider token's ES256 signature), so the ratio is the channel's cost:
// the shared token, the headers, the apns-id, the classification.
//
// The stub runs in a process of its own (this executable with
// --serve-stub), as APNs runs on machines of its own: in one process the
// stub's half of each request took the cores the channel runs on.
// `--stub in-process` keeps it in this process, as the first measurements
// did (docs/performance.md, "Push").
//
//   swift run -c release --package-path Benchmarks push-bench [--pushes N] [--rounds R] [--stub process|in-process]

let arguments = CommandLine.arguments
func option(_ name: String, default value: Int) -> Int {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1]) else { return value }
    return number
}
let pushes = option("--pushes", default: 20_000)
let rounds = option("--rounds", default: 5)
let concurrency = 100

let keyID = "ABC123DEFG", teamID = "TEAM123456", topic = "com.farelens.app"

if arguments.contains("--serve-stub") {
    try await StubProcess.serve(keyID: keyID, teamID: teamID, topic: topic)
    exit(0)
}

let stubPlacement = arguments.firstIndex(of: "--stub").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? "process"
guard ["process", "in-process"].contains(stubPlacement) else {
    FileHandle.standardError.write(Data("push-bench: --stub takes 'process' or 'in-process', not '\(stubPlacement)'\n".utf8))
    exit(64)
}
let key = P256.Signing.PrivateKey()
let stub: any PushStub = stubPlacement == "process"
    ? try StubProcess(providerKey: key.publicKey)
    : try await InProcessStub(APNsStub(providerKey: key.publicKey, keyID: keyID, teamID: teamID, topic: topic))
let baseURL = stub.baseURL
let settings = ApnsSettings(keyPEM: key.pemRepresentation, keyID: keyID, teamID: teamID, topic: topic, baseURL: baseURL, trustRootsPEM: stub.certificatePEM)

var configuration = HTTPClient.Configuration()
configuration.connectionPool.retryConnectionEstablishment = false
let channelClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
let channel = try ApnsChannel(settings: settings, client: channelClient)

// The floor's client: the same library, one prepared request, a token signed once.
var tls = TLSConfiguration.makeClientConfiguration()
tls.applicationProtocols = ["h2"]
tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(stub.certificatePEM.utf8)))]
let floorClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
struct Claims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
let keys = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation), kid: JWKIdentifier(string: keyID))
let bearer = try await keys.sign(Claims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: Date())), kid: JWKIdentifier(string: keyID))
let token = String(repeating: "ab12cd34", count: 8)
let body = #"{"alert_id":"a0192f3a4b5c6d7e8f9a0b1c2d3e4f5a","aps":{"alert":{"body":"Save 35% vs average.","title":"Tokyo deal dropped to $650"},"category":"DEAL_ALERT","sound":"default","thread-id":"route.JFK-NRT"},"kind":"exceptional_deal","route":"JFK-NRT","simulated":false}"#
var floorRequest = HTTPClientRequest(url: "\(baseURL)/3/device/\(token)")
floorRequest.method = .POST
floorRequest.tlsConfiguration = tls
for (name, value) in [
    ("content-type", "application/json"), ("apns-topic", topic), ("apns-push-type", "alert"), ("apns-priority", "10"), ("apns-expiration", "0"),
    ("apns-id", UUID().uuidString), ("authorization", "bearer \(bearer)"),
] { floorRequest.headers.add(name: name, value: value) }
floorRequest.body = .bytes(ByteBuffer(string: body))
let request = floorRequest

/// `count` operations, `concurrency` at a time; ns per operation, and whether each succeeded.
func run(_ count: Int, _ operation: @escaping @Sendable (Int) async -> Bool) async -> (Double, Int) {
    let failures = ManagedCounter()
    let nanos = await timeOnce(operations: count) {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var index = worker
                    while index < count {
                        if !(await operation(index)) { failures.add() }
                        index += concurrency
                    }
                }
            }
        }
    }
    return (nanos, failures.value)
}

final class ManagedCounter: Sendable {
    private let count = Atomic(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

let alertBody = Data(body.utf8)
@Sendable func channelPush(_ index: Int) async -> Bool {
    let alert = OutboundAlert(
        alertID: "a\(index)", userID: "u1", kind: .exceptionalDeal, body: alertBody, attempt: 1,
        device: PushDevice(token: token, environment: .production), collapseID: "JFK-NRT", expiresAt: nil)
    return await channel.deliver(alert) == .delivered
}
@Sendable func floorPush(_ index: Int) async -> Bool {
    guard let response = try? await floorClient.execute(request, timeout: .seconds(30)) else { return false }
    _ = try? await response.body.collect(upTo: 1 << 16)
    return response.status == .ok
}

// Warm-up: the connections, the token, the stub's key.
_ = await run(2_000, channelPush)
_ = await run(2_000, floorPush)

var floorSamples: [Double] = []
var channelSamples: [Double] = []
var failed = 0
for round in 1...rounds {
    let (floorNanos, floorFailures) = await run(pushes, floorPush)
    let (channelNanos, channelFailures) = await run(pushes, channelPush)
    floorSamples.append(floorNanos)
    channelSamples.append(channelNanos)
    failed += floorFailures + channelFailures
    print("round \(round): floor \(format(1e9 / floorNanos, decimals: 0)) req/s, channel \(format(1e9 / channelNanos, decimals: 0)) pushes/s")
}
let floorRate = 1e9 / median(floorSamples)
let channelRate = 1e9 / median(channelSamples)
try await channelClient.shutdown().get()
try await floorClient.shutdown().get()
let connections = try await stub.stop()
print("""
    push-bench: \(pushes) pushes × \(rounds) rounds, \(concurrency) in flight, stub \(stubPlacement == "process" ? "in its own process" : "in this process"), connections opened: channel+floor \(connections)
      floor (trivial HTTP/2 client, same stub):  \(format(floorRate, decimals: 0)) req/s (median)
      APNs channel:                              \(format(channelRate, decimals: 0)) pushes/s (median)
      ratio channel/floor: \(format(channelRate / floorRate, decimals: 2))  (target ≥ 0.50; absolute target ≥ 5,000/s)
      failed requests: \(failed)
    """)
