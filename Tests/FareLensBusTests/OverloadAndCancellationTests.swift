import FareLensBus
import FareLensTesting
import Testing

@Suite("Overload, cancellation and drain")
struct OverloadAndCancellationTests {
    @Test("Requests beyond a service's in-flight bound fail at once with overloaded")
    func boundedInFlight() async throws {
        let (bus, _) = makeBus()
        let gate = Gate()
        try bus.serve(SlowRequest.self, maxInFlight: 2) { request, _ in
            await gate.wait()
            return EchoResponse(text: request.label)
        }
        async let first = bus.request(SlowRequest(label: "1"))
        async let second = bus.request(SlowRequest(label: "2"))
        try await gate.waitForArrivals(2)
        let third = await busError { try await bus.request(SlowRequest(label: "3")) }
        #expect(third?.kind == .overloaded)
        gate.open()
        #expect(try await first.text == "1")
        #expect(try await second.text == "2")
        #expect(try await bus.request(SlowRequest(label: "4")).text == "4")
    }

    @Test("Cancelling the caller cancels an inline handler and yields cancelled")
    func inlineCancellation() async throws {
        let (bus, _) = makeBus()
        let handlerSawCancellation = FareLensTesting.Counter()
        let started = Gate()
        try bus.serve(SlowRequest.self) { _, _ in
            Task { started.open() }
            do { try await Task.sleep(for: .seconds(30)) } catch { handlerSawCancellation.add() }
            return EchoResponse(text: "done")
        }
        let caller = Task { await busError { try await bus.request(SlowRequest()) } }
        await started.wait()
        caller.cancel()
        let error = await caller.value
        #expect(error?.kind == .cancelled)
        #expect(handlerSawCancellation.value == 1)
    }

    @Test("Cancelling the caller of an isolated handler releases it at once and cancels the handler")
    func isolatedCancellation() async throws {
        let (bus, _) = makeBus()
        let handlerSawCancellation = Gate()
        let started = Gate()
        try bus.serve(SlowRequest.self, execution: .isolated) { _, _ in
            started.open()
            do { try await Task.sleep(for: .seconds(30)) } catch { handlerSawCancellation.open() }
            return EchoResponse(text: "done")
        }
        let caller = Task { await busError { try await bus.request(SlowRequest()) } }
        await started.wait()
        caller.cancel()
        #expect(await caller.value?.kind == .cancelled)
        await handlerSawCancellation.wait()  // hangs (and the suite times out) if the handler was not cancelled
    }

    @Test("Draining a service refuses new requests and waits for in-flight ones")
    func drainWaitsForInFlight() async throws {
        let (bus, _) = makeBus()
        let gate = Gate()
        try bus.serve(SlowRequest.self) { _, _ in
            await gate.wait()
            return EchoResponse(text: "finished")
        }
        let inFlight = Task { try await bus.request(SlowRequest()) }
        try await gate.waitForArrivals(1)
        let drained = Task { await bus.drain("slow") }
        while bus.isAccepting(at: "slow") { await Task.yield() }
        let during = await busError { try await bus.request(SlowRequest()) }
        #expect(during?.kind == .serviceUnavailable)
        #expect(bus.inFlight(at: "slow") == 1)
        gate.open()
        #expect(try await inFlight.value.text == "finished")
        await drained.value
        #expect(!bus.localAddresses.contains("slow"))
        let after = await busError { try await bus.request(SlowRequest()) }
        #expect(after?.kind == .serviceUnavailable)
    }
}
