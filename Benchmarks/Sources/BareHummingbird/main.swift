import Foundation
import Hummingbird
import Logging

/// The reference of the gateway benchmark (Benchmarks/gateway-bench.py): a
/// bare Hummingbird 2 route that returns a constant JSON body, with no
/// middleware, no token and no bus. The gateway's figures are read against
/// it, measured in the same run on the same machine.
///
///   bare-hummingbird PORT
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8090 : 8090
var logger = Logger(label: "bare-hummingbird")
logger.logLevel = .error
let router = Router()
let body = #"{"suggestions":[{"airport":{"iata_code":"SAN","name":"San Diego International Airport"}}]}"#
router.get("constant") { _, _ in
    Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
}
let app = Application(
    router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
    onServerRunning: { _ in print("bare-hummingbird listening on \(port)") }, logger: logger)
try await app.runService()
