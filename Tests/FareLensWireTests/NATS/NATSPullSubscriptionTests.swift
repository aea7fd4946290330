#if NATS
import FareLensBus
@testable import FareLensNATS
import FareLensTesting
import Testing

/// Fetching a node's durable events around libnats 3.4's fetch, which
/// writes past its array when it starts with more than half a batch of
/// messages left over from an earlier request (nats-io/nats.c#749).
@Suite("Pull subscription fetches")
struct NATSPullSubscriptionTests {
    @Test("messages left over from an expired request (200 or so, more than half a batch of 256) are handed over alone, without a request for more over them; the stream's others come with the next fetches, each event once")
    func leftoversFetchedAlone() async throws {
        let server = try await TestNATSServer.start()
        defer { server.kill() }
        let settings = NATSTransportTests.settings(server)
        // A node makes the namespace's stream; the test's consumer is made before the events (interest retention).
        let publisher = try await NATSTransportTests.Node(name: "publisher", settings: settings)
        defer { publisher.stop() }
        let connection = try NATSConnection(settings: settings, name: "leftovers") { _ in }
        let subjects = NATSSubjects(namespace: settings.namespace)
        let subscription = try connection.pullSubscription(
            stream: subjects.stream, subject: subjects.durableEvents, durable: "leftovers", ackWait: .seconds(30), maxAckPending: 1_000
        ).subscription
        for sequence in 1 ... 200 { try await publisher.bus.publish(PriceDropped(route: "LIS-BOS", sequence: sequence)) }
        // A request the client gives up on (after 200 ms; the request says so too) before the server,
        // stopped, reads it: the server then counts those 200 ms from its reading and answers at once.
        try await server.pause()
        let gaveUp = try subscription.fetch(batch: 256, milliseconds: 200).get()
        server.resume()
        #expect(gaveUp.isEmpty)
        // The server answers it after all: the 200 arrive with nobody fetching.
        try await waitUntil("the expired request's 200 events are here") { subscription.waiting >= 200 }
        for sequence in 201 ... 300 { try await publisher.bus.publish(PriceDropped(route: "LIS-BOS", sequence: sequence)) }
        let leftovers = try subscription.fetch(batch: 256, milliseconds: 250).get()
        // The leftovers alone (the request may have taken an event or two of the later ones before it
        // expired). A fetch of 256 over them would have asked the server for the rest of the 256 and
        // returned 256.
        #expect((200 ..< 256).contains(leftovers.count), "\(leftovers.count)")
        var rest: [NATSMessage] = []
        while leftovers.count + rest.count < 300 {
            let fetched = try subscription.fetch(batch: 256, milliseconds: 250).get()
            #expect(!fetched.isEmpty, "the stream's other events")
            if fetched.isEmpty { break }
            rest += fetched
        }
        #expect(leftovers.count + rest.count == 300, "each event once")
        for message in leftovers + rest { message.acknowledge() }
    }
}
#endif
