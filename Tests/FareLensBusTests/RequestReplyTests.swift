import FareLensBus
import FareLensTesting
import Testing

@Suite("Request/reply in process")
struct RequestReplyTests {
    @Test("A request returns the handler's typed response")
    func typedResponse() async throws {
        let (bus, _) = makeBus()
        try serveEcho(on: bus)
        let response = try await bus.request(EchoRequest(text: "LHR-JFK"))
        #expect(response == EchoResponse(text: "LHR-JFK"))
    }

    @Test("In process a message is passed as a value and never serialized")
    func noSerializationInProcess() async throws {
        let (bus, _) = makeBus()
        try bus.serve(CountingRequest.self) { _, _ in EchoResponse(text: "ok") }
        let counter = EncodingCounter()
        _ = try await bus.request(CountingRequest(counter: counter))
        #expect(counter.value == 0)
    }

    @Test("A request to an address nobody hosts fails at once with serviceUnavailable")
    func unknownAddress() async {
        let (bus, _) = makeBus()
        let error = await busError { try await bus.request(EchoRequest(text: "x")) }
        #expect(error?.kind == .serviceUnavailable)
        #expect(error?.message.contains("echo") == true)
    }

    @Test("A request type the hosting service does not handle fails with badMessage")
    func unknownTypeAtKnownAddress() async throws {
        let (bus, _) = makeBus()
        try serveEcho(on: bus)
        let error = await busError { try await bus.request(ShoutRequest(text: "x")) }
        #expect(error?.kind == .badMessage)
    }

    @Test("A second handler for the same request type is refused")
    func duplicateHandler() throws {
        let (bus, _) = makeBus()
        try serveEcho(on: bus)
        #expect(throws: BusError.self) { try serveEcho(on: bus) }
    }

    @Test("A service error reaches the caller as remote with its code and message")
    func serviceErrorBecomesRemote() async throws {
        let (bus, _) = makeBus()
        try bus.serve(EchoRequest.self) { _, _ in throw InvalidField(field: "origin") }
        let error = await busError { try await bus.request(EchoRequest(text: "x")) }
        #expect(error?.kind == .remote)
        #expect(error?.remoteCode == "invalid-field")
        #expect(error?.message == "field 'origin' is invalid")
    }

    @Test("A failed request is not retried: the handler runs exactly once (at most once delivery)")
    func atMostOnce() async throws {
        let (bus, _) = makeBus()
        let calls = FareLensTesting.Counter()
        try bus.serve(EchoRequest.self) { _, _ in
            calls.add()
            throw InvalidField(field: "origin")
        }
        _ = await busError { try await bus.request(EchoRequest(text: "x")) }
        #expect(calls.value == 1)
    }

    @Test("Any other handler error is reported as remote 'internal', never a crash")
    func otherErrorBecomesInternal() async throws {
        struct Boom: Error {}
        let (bus, _) = makeBus()
        try bus.serve(EchoRequest.self) { _, _ in throw Boom() }
        let error = await busError { try await bus.request(EchoRequest(text: "x")) }
        #expect(error?.kind == .remote)
        #expect(error?.remoteCode == "internal")
    }

    @Test("Metrics count handled requests and errors per message type")
    func metricsPerType() async throws {
        let (bus, metrics) = makeBus()
        try bus.serve(EchoRequest.self) { request, _ in
            if request.text == "bad" { throw InvalidField(field: "text") }
            return EchoResponse(text: request.text)
        }
        _ = try await bus.request(EchoRequest(text: "a"))
        _ = try await bus.request(EchoRequest(text: "b"))
        _ = await busError { try await bus.request(EchoRequest(text: "bad")) }
        let dimensions = [("type", EchoRequest.wireTypeName), ("address", "echo")]
        let handled = try metrics.expectCounter("farelens_bus_requests_total", dimensions)
        #expect(handled.totalValue == 2)
        let errors = try metrics.expectCounter("farelens_bus_request_errors_total", dimensions + [("kind", "remote")])
        #expect(errors.totalValue == 1)
        let latency = try metrics.expectTimer("farelens_bus_request_duration_seconds", dimensions)
        #expect(latency.values.count == 2)
    }
}
