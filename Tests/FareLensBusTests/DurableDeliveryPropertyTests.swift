import FareLensBus
import FareLensTesting
import PropertyBased
import Testing

/// Every durable event arrives exactly once, whatever the interleaving of
/// concurrent publishers, the subscriber's buffer size or whether it is a
/// wildcard subscriber (issue #8: concurrent publishers used to lose events
/// that a "highest sequence seen" dedupe took for redeliveries).
@Suite("Durable delivery, generated cases")
struct DurableDeliveryPropertyTests {
    @Test("Concurrent publishers on one bus: every durable event reaches every subscriber exactly once, FIFO per publishing task")
    func concurrentPublishersExactlyOnce() async {
        await propertyCheck(
            count: 24,
            input: Gen.int(in: 1 ... 8), Gen.int(in: 1 ... 400), Gen.element(of: [1, 4, 64, 4096]).map { $0 ?? 1 }, Gen.bool
        ) { publishers, perPublisher, bufferSize, wildcard in
            do {
                try await Self.check(publishers: publishers, perPublisher: perPublisher, bufferSize: bufferSize, wildcard: wildcard)
            } catch {
                Issue.record("\(publishers) publishers × \(perPublisher), buffer \(bufferSize), wildcard \(wildcard): \(error)")
            }
        }
    }

    @Test("The reported case: 4 publishers × 2000 events into a buffer of 4 all arrive")
    func reportedCase() async throws {
        try await Self.check(publishers: 4, perPublisher: 2000, bufferSize: 4, wildcard: true)
    }

    static func check(publishers: Int, perPublisher: Int, bufferSize: Int, wildcard: Bool) async throws {
        let bus = MessageBus()
        let typed = bus.subscribe(PriceDropped.self, bufferSize: bufferSize)
        let all = wildcard ? bus.subscribeAll(bufferSize: bufferSize) : nil
        let total = publishers * perPublisher
        // Consumers read until the end marker, published once every
        // publisher has returned (so it is queued behind all their events):
        // a lost event fails at once instead of waiting out a time limit.
        let typedReceived = Task { try await eventsUntilEndMarker(typed) { $0 } }
        let wildcardReceived = all.map { all in Task { try await eventsUntilEndMarker(all) { $0 as? PriceDropped } } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for publisher in 0 ..< publishers {
                group.addTask {
                    for sequence in 0 ..< perPublisher { try await bus.publish(PriceDropped(route: "P\(publisher)", sequence: sequence)) }
                }
            }
            try await group.waitForAll()
        }
        try await bus.publish(PriceDropped(route: "end", sequence: 0))
        for task in [typedReceived] + (wildcardReceived.map { [$0] } ?? []) {
            let received = try await task.value
            #expect(received.count == total)
            #expect(Set(received.map { "\($0.route)/\($0.sequence)" }).count == received.count, "an event arrived twice")
            for publisher in 0 ..< publishers {
                let sequences = received.filter { $0.route == "P\(publisher)" }.map(\.sequence)
                #expect(sequences == Array(0 ..< perPublisher), "publisher \(publisher) out of order or incomplete")
            }
        }
    }
}
