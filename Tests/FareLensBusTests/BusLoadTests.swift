import FareLensBus
import FareLensTesting
import Testing

/// `MessageBus.load()`: what `farelensctl status` shows as a node's load.
@Suite("Bus load")
struct BusLoadTests {
    @Test("requests being handled count per address until answered; events count per topic until their consumers take them")
    func load() async throws {
        let bus = MessageBus()
        let gate = Gate()
        try bus.serve(SlowRequest.self) { request, _ in
            await gate.wait()
            return EchoResponse(text: request.label)
        }
        let ticks = bus.subscribe(Tick.self, bufferSize: 16)
        let everything = bus.subscribeAll(bufferSize: 16)
        for sequence in 0 ..< 3 { try await bus.publish(Tick(sequence: sequence)) }
        let callers = (0 ..< 2).map { index in Task { try await bus.request(SlowRequest(label: "\(index)"), timeout: .seconds(30)) } }
        try await waitUntil("both requests are in the handler") { bus.load().inFlight["slow"] == 2 }
        #expect(bus.load().queuedEvents == ["test.tick": 3, "*": 3])

        gate.open()
        for caller in callers { _ = try await caller.value }
        var taken = 0
        for await _ in ticks {
            taken += 1
            if taken == 3 { break }
        }
        let after = bus.load()
        #expect(after.inFlight["slow"] == 0)
        #expect(after.queuedEvents["test.tick"] == 0 && after.queuedEvents["*"] == 3, "the wildcard subscriber has not taken its copies")
        everything.cancel()
    }
}
