import FareLensBus
import FareLensTesting
import Testing

@Suite("Deadlines")
struct DeadlineTests {
    /// A bus whose deadlines are on `manual`: time passes for them only when the test moves it.
    static func busOnManualClock(_ manual: ManualWallClock) -> MessageBus {
        var configuration = BusConfiguration()
        configuration.clock = BusClock(following: manual)
        return MessageBus(configuration: configuration)
    }

    @Test("An inline handler that answers after the deadline yields timeout: the bus's clock passed it while the handler ran")
    func inlineLateReplyIsTimeout() async throws {
        let manual = ManualWallClock()
        let bus = Self.busOnManualClock(manual)
        try bus.serve(SlowRequest.self) { _, _ in
            manual.advance(by: 0.2)  // 200 ms of the bus's time, none of the machine's
            return EchoResponse(text: "late")
        }
        let error = await busError { try await bus.request(SlowRequest(), timeout: .milliseconds(20)) }
        #expect(error?.kind == .timeout)
        #expect(error?.message.contains("within 0.02 seconds") == true, "the timeout names the budget: \(String(describing: error))")
    }

    @Test("Real time does not pass a deadline on a test's clock: a handler that takes longer than its budget, while the bus's clock stands, answers")
    func realTimeDoesNotExpireATestClock() async throws {
        let manual = ManualWallClock()
        let bus = Self.busOnManualClock(manual)
        try bus.serve(SlowRequest.self) { _, _ in
            await Task.yield()
            return EchoResponse(text: "in time")
        }
        // One nanosecond: on the machine's clock the reply is always late (the same request without a
        // test's clock yields timeout, below); on the bus's clock, which stands, it is in time.
        #expect(try await bus.request(SlowRequest(), timeout: .nanoseconds(1)).text == "in time")
        let (realBus, _) = makeBus()
        try serveEcho(on: realBus)
        try realBus.serve(SlowRequest.self) { _, _ in
            await Task.yield()
            return EchoResponse(text: "late")
        }
        #expect(await busError { try await realBus.request(SlowRequest(), timeout: .nanoseconds(1)) }?.kind == .timeout)
    }

    @Test("An isolated handler that never returns releases its caller with timeout when the bus's clock passes the deadline, and not before")
    func isolatedHangIsTimeout() async throws {
        let manual = ManualWallClock()
        let bus = Self.busOnManualClock(manual)
        let gate = Gate()
        try bus.serve(SlowRequest.self, execution: .isolated) { _, _ in
            await gate.wait()  // never opened while the caller waits
            return EchoResponse(text: "never")
        }
        // An hour of the bus's time: released only because the test moves the clock (the time limit is real).
        let caller = Task { await busError { try await bus.request(SlowRequest(), timeout: .seconds(3600)) } }
        defer { gate.open() }
        try await gate.waitForArrivals(1)
        #expect(await manual.waitUntilSleeping(1), "the deadline's timer waits on the bus's clock")
        manual.advance(by: 3599)
        #expect(manual.sleeping == 1, "a second before the deadline: the caller still waits")
        manual.advance(by: 2)
        // Cancelled at the limit, so a caller that is never released ends the test instead of holding it.
        let error = try await withTimeLimit("the caller released", limit: .seconds(30)) {
            await withTaskCancellationHandler { await caller.value } onCancel: { caller.cancel() }
        }
        #expect(error?.kind == .timeout)
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
