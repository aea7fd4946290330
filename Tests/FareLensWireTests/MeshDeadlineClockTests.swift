import FareLensBus
import FareLensTesting
import Testing

/// Request deadlines on the bus's clock (``BusClock``), in every shape: a
/// test's clock, far from real time, gives a request its budget on it, the
/// budget crosses a process hop as the time left, and a hung handler's
/// caller is released when the test moves the clock past the deadline.
@Suite("Deadlines on the bus's clock, in every shape")
struct MeshDeadlineClockTests {
    @Test("a request's budget is made on the bus's clock and reaches the handler as the time left on its bus's clock", arguments: MeshShape.allCases)
    func budgetOnTheBusClock(shape: MeshShape) async throws {
        let manual = ManualWallClock()
        // A thousand seconds ahead of real time: a deadline read on the machine's clock would be long past.
        manual.advance(by: 1000)
        let clock = BusClock(following: manual)
        let left = Locked<Duration?>(nil)
        try await withTestMesh(shape, clock: clock) { server, _ in
            try server.serve(EchoRequest.self) { request, context in
                left.set(context.dueAt - server.configuration.clock.instant)
                return EchoResponse(text: request.text)
            }
        } body: { mesh in
            #expect(try await mesh.clientBus.request(EchoRequest(text: "x"), timeout: .seconds(60)).text == "x")
            let seen = try #require(left.get())
            // At most the minute given; across a socket, less by the hop's real transit.
            #expect(seen <= .seconds(60) && seen > .seconds(30), "the handler saw \(seen) left")
        }
    }

    @Test("a caller whose handler hangs is released with timeout when the bus's clock passes the deadline", arguments: MeshShape.allCases)
    func hungHandlerReleasedByTheClock(shape: MeshShape) async throws {
        let manual = ManualWallClock()
        let gate = Gate()
        try await withTestMesh(shape, clock: BusClock(following: manual)) { server, _ in
            try server.serve(SlowRequest.self, execution: .isolated) { _, _ in
                await gate.wait()
                return EchoResponse(text: "never")
            }
        } body: { mesh in
            // An hour of the bus's time: only the test's move can release the caller within the real limit below.
            let caller = Task { await busError { try await mesh.clientBus.request(SlowRequest(), timeout: .seconds(3600)) } }
            defer { gate.open() }
            try await gate.waitForArrivals(1)
            #expect(await manual.waitUntilSleeping(1), "the handler's deadline waits on the bus's clock")
            manual.advance(by: 3601)
            // Cancelled at the limit, so a caller that is never released ends the test instead of holding it.
            let error = try await withTimeLimit("the caller released", limit: .seconds(30)) {
                await withTaskCancellationHandler { await caller.value } onCancel: { caller.cancel() }
            }
            #expect(error?.kind == .timeout)
        }
    }
}
