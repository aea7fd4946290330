#if NATS
import FareLensBus
@testable import FareLensNATS
import FareLensTesting
import Testing

/// A JetStream message and the subscription it was fetched from: libnats
/// acknowledges through the subscription a message points to without
/// holding it, so the message must hold it.
@Suite("JetStream messages and their subscription")
struct NATSMessageLifetimeTests {
    @Test("a fetched JetStream message keeps its subscription alive: acknowledged after the consumer let the subscription go, it acknowledges through live memory, and the subscription goes with the last message")
    func messageKeepsItsSubscription() async throws {
        let settings = NATSTransportTests.settings(try await TestNATSServer.shared())
        // A node makes the namespace's stream; a consumer of the test's own
        // is made before the node's event (the stream keeps an event only
        // for the consumers there when it is stored).
        let publisher = try await NATSTransportTests.Node(name: "publisher", settings: settings)
        defer { publisher.stop() }
        let connection = try NATSConnection(settings: settings, name: "lifetime") { _ in }
        let subjects = NATSSubjects(namespace: settings.namespace)
        var subscription: NATSPullSubscription? = try connection.pullSubscription(
            stream: subjects.stream, subject: subjects.durableEvents, durable: "lifetime", ackWait: .seconds(30), maxAckPending: 16
        ).subscription
        try await publisher.bus.publish(PriceDropped(route: "LIS-BOS", sequence: 1))
        weak let held = subscription
        var messages = try #require(subscription).fetch(batch: 1, milliseconds: 5_000).get()
        #expect(messages.count == 1)
        subscription = nil
        #expect(held != nil, "the message keeps the subscription it came from")
        messages.first?.acknowledge()
        messages = []
        #expect(held == nil, "the subscription goes with its last message")
        // The acknowledgement reached the consumer: nothing is left for it.
        try await waitUntil("the consumer has nothing left to settle") { connection.position(of: "lifetime", in: subjects.stream)?.lag == 0 }
    }
}
#endif
