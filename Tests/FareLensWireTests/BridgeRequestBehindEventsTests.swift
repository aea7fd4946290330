import FareLensBus
import FareLensTesting
import FareLensWire
import Foundation
import Testing

/// A subscriber that asks the publishing peer something while it handles
/// each durable event (the alerts service asking subscription for the users
/// of the crossings it decides) must not wait on a response that arrived
/// behind the events it has not consumed yet (docs/decisions/0009).
@Suite("A request behind durable events")
struct BridgeRequestBehindEventsTests {
    /// A response held behind the events would hold the subscriber, and so
    /// the events, for ever: the run then fails when no event has been
    /// consumed for 60 s. Not a bound on the whole run: alone it takes 5 s on
    /// a slow machine, and beside six other tests on one it consumed 4,209
    /// of the 5,000 in its first 60 s, steadily (2026-12-02). The buses'
    /// clocks stand (``BusClock/standing()``), so no request times out in a
    /// process because the machine is busy: with a real 3 s deadline, one
    /// request of 5,000 once timed out in a loaded parallel run, the rest
    /// answered at once.
    @Test("5,000 durable events from the hub, each handled with a request back to the hub: every request is answered, none is held behind the events, all events are consumed")
    func requestsAnsweredBehindABacklog() async throws {
        try await withStallLimit("the backlog was consumed", stall: .seconds(60)) { progress in try await Self.backlog(progress) }
    }

    static func backlog(_ progress: ProgressMark) async throws {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub", clock: .standing())
        try hubBus.serve(EchoRequest.self) { request, _ in EchoResponse(text: request.text) }
        let (_, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let spokeBus = makeNodeBus("alerts-node", deadline: .seconds(3), clock: .standing())
        let events = spokeBus.subscribe(PriceDropped.self, bufferSize: 16)
        // A small buffer for non-durable events: it must not hold durable ones back either.
        var spokeBridge = fastBridge(socket)
        spokeBridge.inboundEventBuffer = 64
        let (_, spokeTask) = try await startSpoke(spokeBus, spokeBridge, name: "alerts-node")
        defer { for task in [spokeTask, hubTask] { task.cancel() } }

        // All published at once: far more than the subscriber's buffer and a socket read's worth of envelopes wait on the spoke.
        let count = 5_000
        for sequence in 0 ..< count { try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: sequence)) }

        var consumed = 0
        var failures: [String] = []
        for await delivery in events {
            do {
                let answer = try await spokeBus.request(EchoRequest(text: "user of \(delivery.event.sequence)"))
                if answer.text != "user of \(delivery.event.sequence)" { failures.append("wrong answer \(answer.text)") }
            } catch {
                failures.append("\(error.kind): \(error.message)")
                if failures.count >= 3 { break }
            }
            consumed += 1
            progress.advance()
            if consumed == count { break }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(consumed == count)
    }
}
