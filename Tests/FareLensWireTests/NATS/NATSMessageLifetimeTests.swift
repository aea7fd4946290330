#if NATS
import FareLensBus
@testable import FareLensNATS
import FareLensTesting
import Testing

/// libnats 3.4 uses some of its objects without holding them: a JetStream
/// message acknowledges through the subscription it points to, and the
/// read loop hands a message to a subscription it looked up a moment
/// before (nats-io/nats.c#637). Each is kept alive here instead.
@Suite("libnats objects kept alive while libnats may use them")
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

    @Test("a subscription let go while its connection is open is unsubscribed at once (what is published after reaches no handler) and freed only with the connection, whose read loop can no longer hand it a message")
    func subscriptionFreedWithItsConnection() async throws {
        let settings = NATSTransportTests.settings(try await TestNATSServer.shared())
        let connection = try NATSConnection(settings: settings, name: "retiring") { _ in }
        // Another connection publishes: a connection does not hear its own (no echo).
        let sender = try NATSConnection(settings: settings, name: "sender") { _ in }
        let subject = "\(settings.namespace).lifetime"
        let heard = Locked(0)
        var subscription: NATSSubscription? = try connection.subscribe(subject) { _ in heard.update { $0 += 1 } }
        try connection.flush()
        try sender.publish(subject, payload: [1])
        try await waitUntil("the subscription hears its subject") { heard.get() == 1 }
        #expect(connection.retiredCount == 0)
        _ = subscription
        subscription = nil
        #expect(connection.retiredCount == 1, "kept until the connection goes")
        try sender.publish(subject, payload: [2])
        // A marker through a second subscription: once it is heard, the server has handled the publish before it.
        let marker = Locked(false)
        let markers = try connection.subscribe(subject + ".marker") { _ in marker.set(true) }
        try connection.flush()
        try sender.publish(subject + ".marker", payload: [3])
        try await waitUntil("the marker is heard") { marker.get() }
        #expect(heard.get() == 1, "nothing after the subscription was let go")
        _ = markers
    }
}
#endif
