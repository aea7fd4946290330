@testable import FareLensBus
import FareLensTesting
import PropertyBased
import Testing

/// Durable events from other nodes: a true redelivery (same id) is not
/// delivered again, an event that merely arrives out of sequence order is,
/// and the sender is acknowledged only once the subscriber is done with it.
@Suite("Redelivery and acknowledgement of durable events from other nodes")
struct RedeliveryTests {
    private func metadata(_ publisher: String, _ sequence: UInt64) -> EventMetadata {
        EventMetadata(id: EventID(publisher: publisher, sequence: sequence), topic: PriceDropped.topic, typeName: PriceDropped.wireTypeName, traceID: .random())
    }

    @Test("Shuffled arrivals with redeliveries mixed in: each distinct id is delivered exactly once")
    func shuffledWithRedeliveries() async {
        await propertyCheck(count: 40, input: Gen.int(in: 1 ... 300), Gen.int(in: 0 ... 100)) { count, repeats in
            let bus = MessageBus()
            let subscription = bus.subscribe(PriceDropped.self, bufferSize: count + repeats + 1)
            var arrivals = Array(1 ... count).map { UInt64($0) }
            arrivals.shuffle()
            for _ in 0 ..< repeats { arrivals.insert(UInt64.random(in: 1 ... UInt64(count)), at: Int.random(in: 0 ... arrivals.count)) }
            for sequence in arrivals {
                await bus.deliverFromTransport(PriceDropped(route: "R", sequence: Int(sequence)), metadata: metadata("far#1", sequence))
            }
            let received = (try? await firstEvents(count, of: subscription, limit: .seconds(10))) ?? []
            #expect(Set(received.map(\.sequence)) == Set(1 ... count))
            #expect(subscription.bufferedCount == 0, "a redelivery was delivered again")
        }
    }

    @Test("A durable event from another node is acknowledged only when its subscriber asks for the next one")
    func acknowledgedAfterConsumption() async throws {
        let bus = MessageBus()
        let subscription = bus.subscribe(PriceDropped.self)
        let acknowledged = Locked<[Int]>([])
        for sequence in 1 ... 2 {
            await bus.deliverFromTransport(PriceDropped(route: "R", sequence: sequence), metadata: metadata("far#1", UInt64(sequence))) {
                acknowledged.update { $0.append(sequence) }
            }
        }
        #expect(acknowledged.get() == [])  // queued is not done
        var iterator = subscription.makeAsyncIterator()
        #expect(await iterator.next()?.event.sequence == 1)
        #expect(acknowledged.get() == [])  // in the consumer's hands
        #expect(await iterator.next()?.event.sequence == 2)
        #expect(acknowledged.get() == [1])
    }

    @Test("A redelivery of an event still in a subscriber's hands is acknowledged when the original is done, not before")
    func redeliveryWaitsForOriginal() async throws {
        let bus = MessageBus()
        let subscription = bus.subscribe(PriceDropped.self)
        let acknowledged = Locked<[String]>([])
        await bus.deliverFromTransport(PriceDropped(route: "R", sequence: 1), metadata: metadata("far#1", 1)) { acknowledged.update { $0.append("first link") } }
        var iterator = subscription.makeAsyncIterator()
        #expect(await iterator.next()?.event.sequence == 1)
        // The link dropped before the acknowledgement; the sender redelivers on the new link.
        await bus.deliverFromTransport(PriceDropped(route: "R", sequence: 1), metadata: metadata("far#1", 1)) { acknowledged.update { $0.append("second link") } }
        #expect(acknowledged.get() == [])
        await bus.deliverFromTransport(PriceDropped(route: "R", sequence: 2), metadata: metadata("far#1", 2))
        #expect(await iterator.next()?.event.sequence == 2)  // done with 1
        #expect(acknowledged.get().sorted() == ["first link", "second link"])
    }

    @Test("Events buffered for a subscription that goes away are acknowledged, so no sender waits for ever")
    func departedSubscriptionSettles() async throws {
        let bus = MessageBus()
        var subscription: EventSubscription<PriceDropped>? = bus.subscribe(PriceDropped.self)
        let acknowledged = Locked(0)
        for sequence in 1 ... 3 {
            await bus.deliverFromTransport(PriceDropped(route: "R", sequence: sequence), metadata: metadata("far#1", UInt64(sequence))) { acknowledged.update { $0 += 1 } }
        }
        #expect(acknowledged.get() == 0)
        subscription = nil
        #expect(subscription == nil)
        #expect(acknowledged.get() == 3)
    }

    @Test("Once the bus is shutting down, events a consumer gives up unhandled are never acknowledged, nor are new arrivals")
    func shutdownLeavesUnhandledUnacknowledged() async throws {
        let bus = MessageBus()
        var subscription: EventSubscription<PriceDropped>? = bus.subscribe(PriceDropped.self)
        let acknowledged = Locked<[Int]>([])
        for sequence in 1 ... 4 {
            await bus.deliverFromTransport(PriceDropped(route: "R", sequence: sequence), metadata: metadata("far#1", UInt64(sequence))) {
                acknowledged.update { $0.append(sequence) }
            }
        }
        var iterator: EventSubscription<PriceDropped>.AsyncIterator? = subscription!.makeAsyncIterator()
        #expect(await iterator?.next()?.event.sequence == 1)
        #expect(await iterator?.next()?.event.sequence == 2)  // done with 1; 2 in hand, 3 and 4 taken in the batch or buffered
        #expect(acknowledged.get() == [1])
        bus.beginShutdown()
        // A redelivery of 2 waits for the original, which is now given up: no acknowledgement either.
        await bus.deliverFromTransport(PriceDropped(route: "R", sequence: 2), metadata: metadata("far#1", 2)) { acknowledged.update { $0.append(20) } }
        // Services stop: the consumer's iterator and subscription go away with 2, 3 and 4 unhandled.
        iterator = nil
        subscription = nil
        #expect(iterator == nil && subscription == nil)
        // An event arriving now is neither delivered nor acknowledged.
        let late = bus.subscribe(PriceDropped.self)
        await bus.deliverFromTransport(PriceDropped(route: "R", sequence: 5), metadata: metadata("far#1", 5)) { acknowledged.update { $0.append(5) } }
        #expect(late.bufferedCount == 0)
        #expect(acknowledged.get() == [1], "only the event the consumer finished is acknowledged; the sender redelivers the rest to the node's next life")
    }

    @Test("With no subscriber a durable event from another node is acknowledged at once")
    func noSubscriberSettlesAtOnce() async {
        let bus = MessageBus()
        let acknowledged = Locked(false)
        await bus.deliverFromTransport(PriceDropped(route: "R", sequence: 1), metadata: metadata("far#1", 1)) { acknowledged.set(true) }
        #expect(acknowledged.get())
    }

    @Test("The window forgets the oldest ids beyond its size, per publisher")
    func windowIsBounded() {
        var window = RedeliveryWindow(perPublisher: 3, publishers: 2)
        for sequence: UInt64 in 1 ... 5 { _ = window.admit(EventID(publisher: "a", sequence: sequence), onSettled: nil, shutdown: ShutdownFlag()) }
        #expect(window.count(for: "a") == 3)
        guard case .deliver = window.admit(EventID(publisher: "a", sequence: 1), onSettled: nil, shutdown: ShutdownFlag()) else {
            Issue.record("id 1 should have been forgotten")
            return
        }
        guard case .redelivery = window.admit(EventID(publisher: "a", sequence: 5), onSettled: nil, shutdown: ShutdownFlag()) else {
            Issue.record("id 5 is within the window")
            return
        }
        _ = window.admit(EventID(publisher: "b", sequence: 1), onSettled: nil, shutdown: ShutdownFlag())
        _ = window.admit(EventID(publisher: "c", sequence: 1), onSettled: nil, shutdown: ShutdownFlag())
        #expect(window.count(for: "a") == 0)  // first heard longest ago: forgotten
    }
}
