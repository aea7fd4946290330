#if NATS
import Dispatch
import FareLensBus
import FareLensTesting
import Testing

extension NATSTransportTests {
    /// A request from NATS starts its handler on its address's own delivery
    /// thread (`NATSTransport.requestConnection`). Were that thread one of
    /// libnats' shared ones, a handler holding it would hold every reply,
    /// heartbeat and event of the node with it.
    @Test("a handler that holds the thread its request from NATS started on holds only its own address: the same node's requests elsewhere are answered meanwhile")
    func heldHandlerHoldsOnlyItsAddress() async throws {
        let release = DispatchSemaphore(value: 0)
        let holding = Locked(false)
        try await withNodes(["holder", "other"]) { bus, name in
            if name == "holder" {
                try bus.serve(SlowRequest.self) { _, _ in
                    holding.set(true)
                    hold(until: release)
                    return EchoResponse(text: "released")
                }
            } else {
                try bus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
            }
        } body: { nodes in
            let holder = nodes[0].bus, other = nodes[1].bus
            let held = Task { try await other.request(SlowRequest(), timeout: .seconds(30)) }
            defer { release.signal() }
            try await waitUntil("the holder's handler holds its thread") { holding.get() }
            for round in 0..<5 {
                let answer = try await holder.request(EchoRequest(text: "round \(round)"), timeout: .seconds(5))
                #expect(answer.text == "round \(round)")
            }
            release.signal()
            #expect(try await held.value.text == "released")
        }
    }
}

/// Blocks the calling thread until `release` is signalled, at most 20 s.
private func hold(until release: DispatchSemaphore) {
    _ = release.wait(timeout: .now() + 20)
}
#endif
