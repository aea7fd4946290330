import FareLensBus
import FareLensTesting
import FareLensWire
import Foundation
import GRDB
import Testing

/// Crashes of real processes: `farelens-test-node` is started as a spoke,
/// brought into a precise state, and killed with SIGKILL — no GOODBYE, no
/// cleanup, nothing flushed that was not already on disk or on the socket.
@Suite("Crashes of real processes", .serialized)
struct ProcessCrashTests {
    private func scratchDirectory() -> String {
        temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
    }

    /// A fresh hub socket path and, beside it, the data directory `name` (created).
    private func hubSocketAndDataDirectory(_ name: String) throws -> (socket: String, data: String) {
        let directory = scratchDirectory()
        let data = directory + "/" + name
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        return (directory + "/hub.sock", data)
    }

    @Test("a consumer killed between its effect and its acknowledgement gets the event again and applies it once (inbox)")
    func consumerKilledBeforeAcknowledgement() async throws {
        let (socket, dataDirectory) = try hubSocketAndDataDirectory("consumer")
        let hubBus = makeNodeBus("hub")
        let (hub, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let arguments = ["consume", "--socket", socket, "--name", "consumer", "--data-dir", dataDirectory]
        var consumer = try ChildProcess.start(Binaries.testNode, arguments + ["--hold-after", "3"])
        defer { consumer.kill() }
        try await consumer.waitForOutput(containing: "joined")

        for sequence in 1 ... 5 { try await hubBus.publish(PriceDropped(route: "LIS-JFK", sequence: sequence)) }
        // Event 3's effect is committed; the consumer has not asked for event 4, so 3 is not acknowledged.
        try await consumer.waitForOutput(containing: "holding 3")
        consumer.kill()
        try await waitUntil("the hub saw the consumer go") {
            hub.meshStatus().nodes.contains { $0.nodeName == "consumer" && !$0.connected }
        }
        let kept = hub.meshStatus().nodes.first { $0.nodeName == "consumer" }?.pendingDurableEvents ?? 0
        #expect((3 ... 5).contains(kept), "events 3, 4 and 5 (and perhaps acknowledgements still in flight) wait for the consumer")

        consumer = try ChildProcess.start(Binaries.testNode, arguments)
        try await consumer.waitForOutput(containing: "applied 5")
        #expect(consumer.output.get().contains("redelivered 3, skipped"), "event 3 came again and the inbox recognised it")
        consumer.kill()

        let database = try DatabaseQueue(path: dataDirectory + "/test-consumer.sqlite")
        let effects = try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT sequence, COUNT(*) AS times FROM effect GROUP BY sequence ORDER BY sequence")
                .map { [$0["sequence"] as Int: $0["times"] as Int] }
        }
        #expect(effects == (1 ... 5).map { [$0: 1] }, "each event's effect happened exactly once")
        hubTask.cancel()
        _ = await hubTask.result
    }

    @Test("a publisher killed with durable events journaled but unacknowledged delivers them, in order, after it restarts")
    func publisherKilledWithJournal() async throws {
        let directory = scratchDirectory()
        let socket = directory + "/hub.sock"
        let firstHubBus = makeNodeBus("hub")
        let firstSubscription = firstHubBus.subscribe(PriceDropped.self)  // the hub wants the topic
        let (_, firstHubTask) = try await startHub(firstHubBus, fastBridge(socket))
        let arguments = ["publish-while-away", "--socket", socket, "--name", "publisher", "--journal", directory + "/publisher-outbox.sqlite"]
        var publisher = try ChildProcess.start(Binaries.testNode, arguments + ["--count", "20"])
        defer { publisher.kill() }
        try await publisher.waitForOutput(containing: "joined")
        firstHubTask.cancel()
        _ = await firstHubTask.result
        withExtendedLifetime(firstSubscription) {}
        try await publisher.waitForOutput(containing: "published 20")
        publisher.kill()

        let hubBus = makeNodeBus("hub")
        let subscription = hubBus.subscribe(PriceDropped.self)
        let (_, hubTask) = try await startHub(hubBus, fastBridge(socket))
        publisher = try ChildProcess.start(Binaries.testNode, arguments)
        #expect(try await firstEvents(20, of: subscription).map(\.sequence) == Array(1 ... 20))
        hubTask.cancel()
        _ = await hubTask.result
    }

    @Test("a publisher killed (kill -9) with events committed to its event outbox, then again while a subscriber in its own process held one unfinished, delivers every one, each under one id across its three lives")
    func outboxPublisherKilled() async throws {
        let (socket, dataDirectory) = try hubSocketAndDataDirectory("publisher")
        let hubBus = makeNodeBus("hub")
        let subscription = hubBus.subscribe(PriceDropped.self)  // the hub wants the topic
        let (_, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let received = Locked<[(id: EventID, sequence: Int)]>([])
        let consumer = Task {
            for await delivery in subscription { received.update { $0.append((delivery.metadata.id, delivery.event.sequence)) } }
        }
        defer { consumer.cancel() }
        func distinct() -> Set<Int> { Set(received.get().map(\.sequence)) }
        func waiting(from sequence: Int = 1) throws -> Int {
            try DatabaseQueue(path: dataDirectory + "/test-publisher.sqlite").read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event_outbox WHERE sequence >= ?", arguments: [sequence]) ?? -1
            }
        }
        let arguments = ["outbox-publisher", "--socket", socket, "--name", "publisher", "--data-dir", dataDirectory, "--batch-size", "5"]

        // First life: 40 events committed, none published.
        var publisher = try ChildProcess.start(Binaries.testNode, arguments + ["--commit", "40", "--hold"])
        defer { publisher.kill() }
        try await publisher.waitForOutput(containing: "committed 40")
        publisher.kill()
        #expect(try waiting() == 40, "committed events survive the kill in the outbox")
        #expect(received.get().isEmpty)

        // Second life: a subscriber in the publisher's own process holds event 15 unfinished,
        // so this node is not done with it; killed once the hub has 1...15 too.
        publisher = try ChildProcess.start(Binaries.testNode, arguments + ["--hold-locally-at", "15"])
        try await publisher.waitForOutput(containing: "holding 15")
        try await waitUntil("the hub has 15 events") { distinct().count >= 15 }
        publisher.kill()
        #expect(try waiting(from: 15) == 26, "15, held unfinished, and every row after it are still there (rows go in order)")

        // Third life: the rest.
        publisher = try ChildProcess.start(Binaries.testNode, arguments)
        try await waitUntil("the hub has all 40 events") { distinct() == Set(1 ... 40) }
        try await waitUntil("the outbox is empty") { (try? waiting()) == 0 }
        publisher.kill()
        let deliveries = received.get()
        let idsBySequence = Dictionary(grouping: deliveries, by: \.sequence).mapValues { Set($0.map(\.id)) }
        #expect(idsBySequence.values.allSatisfy { $0.count == 1 }, "every copy of an event carries its one id, whichever life published it")
        #expect(Set(deliveries.map(\.id.publisher)).count == 1, "one publisher name across the three lives")
        #expect(Set(deliveries.map(\.id)).count == 40)
        hubTask.cancel()
        _ = await hubTask.result
    }

    @Test("kill -9 of a node with requests in flight fails them with service-unavailable, not at their deadline; other services keep working")
    func nodeKilledWithRequestsInFlight() async throws {
        let socket = temporarySocketPath()
        let hubBus = makeNodeBus("hub", deadline: .seconds(60))
        try serveEcho(hubBus)
        let (_, hubTask) = try await startHub(hubBus, fastBridge(socket))
        let node = try ChildProcess.start(Binaries.testNode, ["hold-requests", "--socket", socket, "--name", "slow-node"])
        defer { node.kill() }
        try await node.waitForOutput(containing: "joined")
        let callerBus = makeNodeBus("caller", deadline: .seconds(60))
        let (caller, callerTask) = try await startSpoke(callerBus, fastBridge(socket), name: "caller")
        try await waitUntil("the caller sees the slow service") { caller.hosts(SlowRequest.address) }

        let labels = ["first", "second", "third"]
        async let failures = withThrowingTaskGroup(of: BusError?.self) { group in
            for label in labels {
                // one from the hub itself (one hop), the others from a spoke through the hub (two hops)
                let bus = label == "first" ? hubBus : callerBus
                group.addTask { await busError { try await bus.request(SlowRequest(label: label)) } }
            }
            return try await group.reduce(into: [BusError?]()) { $0.append($1) }
        }
        for label in labels { try await node.waitForOutput(containing: "holding \(label)") }
        node.kill()
        let errors = try await failures
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0?.kind == .serviceUnavailable }, "\(errors)")
        #expect(try await callerBus.request(EchoRequest(text: "still here")).text == "still here")
        for task in [callerTask, hubTask] { task.cancel(); _ = await task.result }
    }
}
