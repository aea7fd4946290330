import FareLensBus
import FareLensMessages
import FareLensTesting
@testable import FareLensWire
import Foundation
import Testing

/// Admin clients may watch topics without joining as nodes: best effort,
/// never journaled, gone with their connection (issue #8 § 5).
@Suite("Admin clients watching events")
struct AdminWatchTests {
    @Test("An admin client watching a topic receives events published on the hub and on another node, and only that topic")
    func watchedTopicArrives() async throws {
        try await withTimeLimit("the watch test finished") {
            let socket = temporarySocketPath()
            let journalPath = socket.replacingOccurrences(of: "bus.sock", with: "hub-outbox.sqlite")
            let journal = try OutboxJournal(path: journalPath, logger: quietLogger())
            var configuration = fastBridge(socket)
            configuration.outboxJournal = journal
            let hubBus = makeNodeBus("hub")
            let (hub, hubTask) = try await startHub(hubBus, configuration)
            let publisherBus = makeNodeBus("watchlist-node")
            let (publisher, publisherTask) = try await startSpoke(publisherBus, fastBridge(socket), name: "watchlist-node")

            let adminBus = makeNodeBus("farelensctl-1")
            adminBus.registerEventTypes([PriceDropped.self, Tick.self])
            let watching = adminBus.subscribeAll(watching: [PriceDropped.topic.name])
            let (_, adminTask) = try await startSpoke(adminBus, fastBridge(socket), name: "farelensctl-1", role: .admin)
            // The publishing node learns (ROUTES) that the hub now relays the topic.
            try await waitUntil("the publisher learnt the watched topic") { publisher.remoteTopicsForTesting.contains(PriceDropped.topic.name) }

            try await hubBus.publish(PriceDropped(route: "HUB", sequence: 1))
            try await hubBus.publish(Tick(sequence: 1))  // not watched
            try await publisherBus.publish(PriceDropped(route: "SPOKE", sequence: 2))
            let events = try await firstEvents(2, of: watching, limit: .seconds(10)).compactMap { $0 as? PriceDropped }
            #expect(Set(events.map(\.route)) == ["HUB", "SPOKE"])
            #expect(watching.bufferedCount == 0, "an unwatched topic reached the admin client")
            // Never acknowledged, so nothing may wait for it: the publisher's outbox empties.
            try await waitUntil("the publisher's durable event was acknowledged") { publisher.pendingDurableEvents == 0 }

            adminTask.cancel()
            _ = await adminTask.result
            try await waitUntil("the admin client left") { hub.connection(named: "farelensctl-1") == nil }
            #expect(journal.knownPeers().map(\.nodeName) == ["watchlist-node"], "an admin client was journaled")
            #expect(hub.meshStatus().nodes.map(\.nodeName).contains("farelensctl-1") == false)
            try await hubBus.publish(PriceDropped(route: "AFTER", sequence: 3))  // nothing kept for the gone watcher
            for task in [publisherTask, hubTask] { task.cancel(); _ = await task.result }
        }
    }
}
