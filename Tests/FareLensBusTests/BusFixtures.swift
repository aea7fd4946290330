import FareLensBus
import FareLensTesting
import Foundation
import MetricsTestKit

/// A bus with test metrics and short deadlines.
func makeBus(deadline: Duration = .seconds(5), maxInFlight: Int = 1024, buffer: Int = 4096, clock: BusClock = .continuous) -> (MessageBus, TestMetrics) {
    let metrics = TestMetrics()
    var configuration = BusConfiguration()
    configuration.defaultDeadline = deadline
    configuration.clock = clock
    configuration.maxInFlightPerService = maxInFlight
    configuration.subscriberBufferSize = buffer
    configuration.metricsFactory = metrics
    return (MessageBus(configuration: configuration), metrics)
}

/// Registers an echo handler that answers with the request's text.
func serveEcho(on bus: MessageBus) throws {
    try bus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
}

/// A service error with a code, as a real service would throw.
struct InvalidField: ServiceError {
    let field: String
    var code: String { "invalid-field" }
    var message: String { "field '\(field)' is invalid" }
}

/// Runs `body` and returns the BusError it throws (nil if it succeeds).
func busError<T>(_ body: () async throws -> T) async -> BusError? {
    do {
        _ = try await body()
        return nil
    } catch let error as BusError {
        return error
    } catch {
        return BusError.badMessage("unexpected non-bus error \(error)")
    }
}

/// A message that counts how often it is serialized (to prove it is not, in process).
struct CountingRequest: BusRequest {
    typealias Response = EchoResponse
    static let address: ServiceAddress = "counting"
    static let wireTypeName = "test.CountingRequest"
    let encodings: EncodingCounter
    func wireEncoded() throws -> [UInt8] {
        encodings.add()
        return []
    }
    init(wireEncoded bytes: [UInt8]) throws { encodings = EncodingCounter() }
    init(counter: EncodingCounter) { encodings = counter }
}

/// Counts serializations of ``CountingRequest``.
typealias EncodingCounter = FareLensTesting.Counter
