#if NATS
import FareLensBus
@testable import FareLensNATS
import FareLensTesting
import Testing

/// Durable publishes whose acknowledgement does not come: the server is
/// stopped with SIGSTOP (alive, its socket open, answering nothing), and
/// the test moves the connections' overdue clock itself (`tick()`; the
/// settings' `acknowledgementTick` is nil, so nothing ticks by itself).
@Suite("Overdue durable publishes over NATS")
struct PendingPublishesTests {
    typealias Node = NATSTransportTests.Node

    /// A publisher on a server of its own, stopped (SIGSTOP) while `body`
    /// runs, and let go on (SIGCONT) after it, then stopped for good.
    private func withPausedServer(_ body: (Node, TestNATSServer) async throws -> Void) async throws {
        let server = try await TestNATSServer.start()
        defer { server.kill() }
        var settings = NATSTransportTests.settings(server)
        settings.acknowledgementTick = nil
        let publisher = try await Node(name: "publisher", settings: settings)
        defer { publisher.stop() }
        try await server.pause()
        defer { server.resume() }
        try await body(publisher, server)
    }

    /// Publishes `count` durable messages on `connection` together and
    /// returns their answers once all came (nil: stored), or nil at once
    /// if not all came by the time `settle` returns.
    private func publish(
        _ count: Int, on connection: NATSConnection, subject: String, tag: String, settle: () async throws -> Void
    ) async throws -> [NATSError?]? {
        let answers = Locked<[NATSError?]?>(nil)
        let acknowledgements = GatheredAcknowledgements { all in answers.update { $0 = all } }
        for index in 0 ..< count {
            let slot = acknowledgements.expect()
            connection.publishDurable(
                subject, messageID: "\(tag)-\(index)", headers: [], payload: Array("overdue \(index)".utf8),
                waiter: PendingPublishes.Waiter(acknowledgements: acknowledgements, slot: slot))
        }
        acknowledgements.seal()
        try await settle()
        return answers.get()
    }

    @Test("publishes the stream never answers are given up on at the third tick, not before: each answered once with a publish error, none left with libnats, and the connection publishes again once the server answers")
    func overdueAtTheThirdTick() async throws {
        try await withPausedServer { publisher, server in
            let connection = publisher.transport.batchConnection
            let subject = publisher.transport.subjects.durableEvent(PriceDropped.topic.name)
            let answers = try await publish(20, on: connection, subject: subject, tag: "stopped") {
                #expect(connection.publishes.tick() == 0, "one tick: not overdue")
                #expect(connection.publishes.tick() == 0, "two ticks: not overdue")
                #expect(connection.publishes.count == 20)
                #expect(connection.publishes.tick() == 20, "the third gives every one up")
            }
            let all = try #require(answers, "every publish answered by the third tick")
            #expect(all.count == 20)
            #expect(all.allSatisfy { $0?.code == "publish" }, "\(all.prefix(2))")
            #expect(connection.publishes.count == 0)
            #expect(connection.allAnswered(waitingAtMost: 100), "libnats holds none of them")
            server.resume()
            // The server answers again: a new publish is stored, and nothing is taken back from it.
            let stored = try await publish(1, on: connection, subject: subject, tag: "running") {
                try await waitUntil("the stream answers") { connection.publishes.count == 0 }
            }
            #expect(stored?.count == 1)
            #expect(stored?.first.map { $0 == nil } == true, "\(String(describing: stored))")
            for _ in 0 ..< 3 { #expect(connection.publishes.tick() == 0) }
        }
    }

    @Test("take-backs while eight tasks publish batches at once: every publish is answered exactly once (given up on), and libnats is left holding none")
    func takeBacksUnderConcurrentPublishes() async throws {
        try await withPausedServer { publisher, server in
            let connection = publisher.transport.batchConnection
            let subject = publisher.transport.subjects.durableEvent(PriceDropped.topic.name)
            let answered = Locked(0)
            // Ticks go on, three at a time, while the tasks publish: each triple gives back what libnats holds.
            let ticking = Task {
                while !Task.isCancelled {
                    for _ in 0 ..< 3 { connection.publishes.tick() }
                    await Task.yield()
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0 ..< 8 {
                    group.addTask {
                        for round in 0 ..< 4 {
                            let answers = Locked<[NATSError?]?>(nil)
                            let acknowledgements = GatheredAcknowledgements { all in
                                // A second answer to the same batch would call this twice, or early.
                                #expect(answers.get() == nil, "a batch answered twice")
                                answers.set(all)
                            }
                            for index in 0 ..< 100 {
                                let slot = acknowledgements.expect()
                                connection.publishDurable(
                                    subject, messageID: "t\(task)-r\(round)-\(index)", headers: [], payload: Array("\(index)".utf8),
                                    waiter: PendingPublishes.Waiter(acknowledgements: acknowledgements, slot: slot))
                            }
                            acknowledgements.seal()
                            try await waitUntil("batch \(task)/\(round) answered") { answers.get() != nil }
                            answered.update { $0 += answers.get()?.count ?? 0 }
                        }
                    }
                }
                try await group.waitForAll()
            }
            ticking.cancel()
            _ = await ticking.value
            #expect(answered.get() == 8 * 4 * 100)
            #expect(connection.publishes.count == 0)
            server.resume()
            #expect(connection.allAnswered(waitingAtMost: 5_000), "libnats holds none of them")
        }
    }
}
#endif
