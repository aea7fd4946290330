import FareLensBus
import FareLensTesting
import Testing

@Suite("Deadlines")
struct DeadlineTests {
    @Test("An inline handler that answers after the deadline yields timeout")
    func inlineLateReplyIsTimeout() async throws {
        let (bus, _) = makeBus()
        try bus.serve(SlowRequest.self) { _, _ in
            try? await Task.sleep(for: .milliseconds(200))
            return EchoResponse(text: "late")
        }
        let error = await busError { try await bus.request(SlowRequest(), timeout: .milliseconds(20)) }
        #expect(error?.kind == .timeout)
    }

    @Test("An isolated handler that never returns releases its caller with timeout")
    func isolatedHangIsTimeout() async throws {
        let (bus, _) = makeBus()
        let gate = Gate()
        try bus.serve(SlowRequest.self, execution: .isolated) { _, _ in
            await gate.wait()  // never opened while the caller waits
            return EchoResponse(text: "never")
        }
        let error = await busError { try await bus.request(SlowRequest(), timeout: .milliseconds(50)) }
        #expect(error?.kind == .timeout)
        gate.open()
    }

    @Test("An already expired deadline fails before the handler runs")
    func expiredBeforeDispatch() async throws {
        let (bus, _) = makeBus()
        let calls = FareLensTesting.Counter()
        try bus.serve(EchoRequest.self) { request, _ in
            calls.add()
            return EchoResponse(text: request.text)
        }
        let error = await busError { try await bus.request(EchoRequest(text: "x"), timeout: .zero) }
        #expect(error?.kind == .timeout)
        #expect(calls.value == 0)
    }

    @Test("A nested request made with its parent context inherits the deadline and trace id")
    func nestedRequestInheritsDeadline() async throws {
        let (bus, _) = makeBus(deadline: .seconds(30))
        let seen = Locked<RequestContext?>(nil)
        try bus.serve(EchoRequest.self) { request, context in
            seen.set(context)
            return EchoResponse(text: request.text)
        }
        let outer = Locked<RequestContext?>(nil)
        try bus.serve(SlowRequest.self) { _, context in
            outer.set(context)
            return try await bus.request(EchoRequest(text: "inner"), parent: context)  // default 30 s, must be capped
        }
        _ = try await bus.request(SlowRequest(), timeout: .seconds(2))
        let inner = try #require(seen.get())
        let parent = try #require(outer.get())
        #expect(inner.deadline == parent.deadline)
        #expect(inner.traceID == parent.traceID)
    }
}
