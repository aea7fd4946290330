@testable import FareLensBus
import FareLensTesting
import PropertyBased
import Testing

/// Event ids keep their publisher as an interned name (``PublisherName``):
/// equal names are equal ids whether interned or kept plain, the table
/// stops growing at its limit, and concurrent interning of one name yields
/// one object.
@Suite("Interned publisher names in event ids")
struct PublisherNameTests {
    @Test("Interned, then plain once the table is full: text, equality and hashing agree with the strings")
    func internedThenPlain() {
        let table = InternedNames(limit: 2)
        let first = PublisherName("hub#k3j2h1g0f9e8d", in: table)
        let second = PublisherName("spoke-alerts#a1b2c3d4e5f6", in: table)
        let overflow = PublisherName("spoke-analytics#zz9yy8xx7", in: table)
        #expect(table.count == 2)
        #expect(first.text == "hub#k3j2h1g0f9e8d")
        #expect(overflow.text == "spoke-analytics#zz9yy8xx7")
        // The same names again: the interned ones are the same objects, the overflow is equal by its text.
        #expect(PublisherName("hub#k3j2h1g0f9e8d", in: table) == first)
        #expect(PublisherName("spoke-analytics#zz9yy8xx7", in: table) == overflow)
        #expect(table.count == 2, "a full table grew")
        #expect(first != second)
        #expect(first != overflow)
        #expect(Set([first, second, overflow, PublisherName("hub#k3j2h1g0f9e8d", in: table), PublisherName("spoke-analytics#zz9yy8xx7", in: table)]).count == 3)
    }

    @Test("Generated names and sequences: ids are equal and hash equally exactly when their strings and sequences are")
    func idsFollowTheirStrings() async {
        let names = ["a", "hub#1", "farelens#3ewq9x1zk0p2", "farelens#3ewq9x1zk0p3", "ünïcødé#名前", String(repeating: "n", count: 300)]
        await propertyCheck(count: 300, input: Gen.int(in: 0 ... names.count - 1), Gen.int(in: 0 ... names.count - 1), Gen.uint64(in: 0 ... 3), Gen.uint64(in: 0 ... 3)) { left, right, leftSequence, rightSequence in
            let a = EventID(publisher: names[left], sequence: leftSequence)
            let b = EventID(publisher: names[right], sequence: rightSequence)
            #expect(a.publisher == names[left])
            #expect((a == b) == (names[left] == names[right] && leftSequence == rightSequence))
            if a == b { #expect(a.hashValue == b.hashValue) }
        }
    }

    @Test("Sixteen tasks interning the same 200 names at once: one object per name")
    func concurrentInterning() async {
        let table = InternedNames(limit: 1_000)
        let names = (0 ..< 200).map { "node-\($0)#\(String(UInt64($0) &* 0x9E37_79B9_7F4A_7C15, radix: 36))" }
        let results = await withTaskGroup(of: [PublisherName].self) { group in
            for task in 0 ..< 16 {
                group.addTask { names.shuffled().map { PublisherName($0, in: table) }.sorted { $0.text < $1.text } + [PublisherName("task-\(task)", in: table)] }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(table.count == 200 + 16)
        let expected = names.map { PublisherName($0, in: table) }.sorted { $0.text < $1.text }
        for result in results {
            let names = Array(result.dropLast())
            #expect(names.map(\.text) == expected.map(\.text))
            #expect(names.allSatisfy { $0.isInterned })
            // Interned names are compared by identity: the same object for every task.
            #expect(names.map(\.objectIdentity) == expected.map(\.objectIdentity), "a name was interned twice")
        }
    }

    @Test("A bus's events carry its publisher id")
    func busEventsCarryThePublisher() async throws {
        var configuration = BusConfiguration()
        configuration.nodeName = "publisher-name-test-node"
        let bus = MessageBus(configuration: configuration)
        let subscription = bus.subscribe(PriceDropped.self)
        try await bus.publish(PriceDropped(route: "R", sequence: 1))
        let delivery = try #require(
            await withTimeLimit("one delivery", limit: .seconds(10)) {
                var events = subscription.makeAsyncIterator()
                return await events.next()
            }
        )
        #expect(delivery.metadata.id.publisher == bus.publisherID)
        #expect(delivery.metadata.id.publisher.hasPrefix("publisher-name-test-node#"))
        #expect(delivery.metadata.id == EventID(publisher: bus.publisherID, sequence: delivery.metadata.id.sequence))
    }
}
