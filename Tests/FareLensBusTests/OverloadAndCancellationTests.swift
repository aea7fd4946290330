import FareLensBus
import FareLensTesting
import Testing

/// Each bus here reads a test's clock that stands still: these tests are of
/// bounds, cancellation and drains, never deadlines, so however long a
/// loaded machine keeps a request waiting, it cannot time out. (With the
/// machine's clock a 5 s deadline ran out in loaded phases, once for all
/// 400 callers of `boundUnderContention`; some tests had raised theirs to
/// 120 s instead.)
@Suite("Overload, cancellation and drain")
struct OverloadAndCancellationTests {
    /// A bus whose clock only a test could move, and none here does.
    static func standingBus() -> MessageBus {
        makeBus(clock: .standing()).0
    }

    @Test("Requests beyond a service's in-flight bound fail at once with overloaded")
    func boundedInFlight() async throws {
        let bus = Self.standingBus()
        let gate = Gate()
        try bus.serve(SlowRequest.self, maxInFlight: 2) { request, _ in
            await gate.wait()
            return EchoResponse(text: request.label)
        }
        async let first = bus.request(SlowRequest(label: "1"))
        async let second = bus.request(SlowRequest(label: "2"))
        try await gate.waitForArrivals(2)
        let third = try await withTimeLimit("the third request was answered") { await busError { try await bus.request(SlowRequest(label: "3")) } }
        #expect(third?.kind == .overloaded)
        gate.open()
        #expect(try await first.text == "1")
        #expect(try await second.text == "2")
        #expect(try await bus.request(SlowRequest(label: "4")).text == "4")
    }

    @Test("Cancelling the caller cancels an inline handler and yields cancelled")
    func inlineCancellation() async throws {
        let bus = Self.standingBus()
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

    @Test("A caller already cancelled is refused with cancelled before its inline handler runs")
    func cancelledBeforeDispatch() async throws {
        let bus = Self.standingBus()
        let handlerRan = FareLensTesting.Counter()
        try bus.serve(EchoRequest.self) { request, _ in
            handlerRan.add()
            return EchoResponse(text: request.text)
        }
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await busError { try await bus.request(EchoRequest(text: "late")) }
        }
        #expect(await caller.value?.kind == .cancelled)
        #expect(handlerRan.value == 0, "the handler of a request made by a cancelled task ran")
    }

    @Test("Cancelling the caller of an isolated handler releases it at once and cancels the handler")
    func isolatedCancellation() async throws {
        let bus = Self.standingBus()
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
        let bus = Self.standingBus()
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

    @Test("Under 400 concurrent callers the bound holds: never more than 3 handlers at once, every refusal is overloaded, and a drain started meanwhile returns once the last admitted one ends")
    func boundUnderContention() async throws {
        let bus = Self.standingBus()
        let running = Locked(0), most = Locked(0)
        try bus.serve(EchoRequest.self, maxInFlight: 3) { request, _ in
            var now = 0
            running.update { $0 += 1; now = $0 }
            most.update { $0 = max($0, now) }
            await Task.yield()
            running.update { $0 -= 1 }
            return EchoResponse(text: request.text)
        }
        let outcomes = await withTaskGroup(of: BusError.Kind?.self) { group in
            for index in 0 ..< 400 {
                group.addTask { await busError { try await bus.request(EchoRequest(text: "\(index)")) }?.kind }
            }
            var kinds: [BusError.Kind?] = []
            for await kind in group { kinds.append(kind) }
            return kinds
        }
        #expect(most.get() <= 3)
        #expect(outcomes.allSatisfy { $0 == nil || $0 == .overloaded }, "\(outcomes.compactMap { $0 }.filter { $0 != .overloaded })")
        #expect(outcomes.contains { $0 == nil })
        #expect(bus.inFlight(at: EchoRequest.address) == 0)
        // Drain while 50 callers race to get in: it returns, with none left in flight.
        let gate = Gate()
        try bus.serve(SlowRequest.self, maxInFlight: 8) { _, _ in
            await gate.wait()
            return EchoResponse(text: "done")
        }
        try await withTimeLimit("the drain returned") {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0 ..< 50 { group.addTask { _ = try? await bus.request(SlowRequest()) } }
                group.addTask { await bus.drain(SlowRequest.address) }
                await Task.yield()
                gate.open()
            }
        }
        #expect(bus.inFlight(at: SlowRequest.address) == 0)
    }
}
