@testable import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import PropertyBased
import Testing

/// The inbox makes an event's effect happen once although durable events
/// arrive at least once (docs/bus.md, "Exactly-once effects").
@Suite("Inbox")
struct InboxTests {
    private func database() throws -> ServiceDatabase {
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        migrations.register("test-001-effects") { db in
            try db.create(table: "effect") { $0.column("route", .text).notNull() }
        }
        return try ServiceDatabase.inMemory(service: "alerts", migrations: migrations)
    }

    private func effectCount(_ database: ServiceDatabase) throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM effect") ?? 0 }
    }

    @Test("A redelivered event's effect is not applied again")
    func redeliveryIsSkipped() throws {
        let database = try database()
        let key = InboxKey(publisher: "search#abc", sequence: 7)
        let first = try database.applyOnce(key, consumer: "alerts") { db in try db.execute(sql: "INSERT INTO effect VALUES ('LIS-JFK')"); return 1 }
        let again = try database.applyOnce(key, consumer: "alerts") { db in try db.execute(sql: "INSERT INTO effect VALUES ('LIS-JFK')"); return 1 }
        #expect(first == 1)
        #expect(again == nil)
        #expect(try effectCount(database) == 1)
        #expect(try database.hasApplied(key, consumer: "alerts"))
    }

    @Test("An effect that fails records nothing, so the redelivery applies it")
    func failedEffectIsRetried() throws {
        let database = try database()
        let key = InboxKey(publisher: "search#abc", sequence: UInt64.max)  // the full unsigned range round-trips
        struct Boom: Error {}
        let error = #expect(throws: StoreError.self) {
            try database.applyOnce(key, consumer: "alerts") { db in
                try db.execute(sql: "INSERT INTO effect VALUES ('half done')")
                throw Boom()
            }
        }
        #expect(error?.codeName == "write-failed")
        #expect(try !database.hasApplied(key, consumer: "alerts"))
        #expect(try effectCount(database) == 0)  // rolled back with the inbox row
        #expect(try database.applyOnce(key, consumer: "alerts") { db in try db.execute(sql: "INSERT INTO effect VALUES ('done')") } != nil)
        #expect(try effectCount(database) == 1)
    }

    @Test("Consumers are independent: the same event is applied once by each")
    func consumersAreIndependent() throws {
        let database = try database()
        let key = InboxKey(publisher: "search#abc", sequence: 1)
        #expect(try database.applyOnce(key, consumer: "alerts.policy") { _ in true } == true)
        #expect(try database.applyOnce(key, consumer: "alerts.digest") { _ in true } == true)
        #expect(try database.applyOnce(key, consumer: "alerts.policy") { _ in true } == nil)
    }

    @Test("The inbox survives reopening the database file, so a restarted consumer still recognises a redelivery")
    func survivesRestart() throws {
        let directory = NSTemporaryDirectory() + "inbox-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        let key = InboxKey(publisher: "search#abc", sequence: 42)
        let first = try ServiceDatabase.open(service: "alerts", directory: directory, migrations: migrations)
        #expect(try first.applyOnce(key, consumer: "alerts") { _ in true } == true)
        try first.close()
        let reopened = try ServiceDatabase.open(service: "alerts", directory: directory, migrations: migrations)
        #expect(try reopened.applyOnce(key, consumer: "alerts") { _ in true } == nil)
        try reopened.close()
    }

    @Test("Pruning forgets only events applied before the cut-off")
    func pruning() throws {
        let database = try database()
        let old = Date(timeIntervalSince1970: 1_000_000)
        let recent = Date(timeIntervalSince1970: 2_000_000)
        _ = try database.applyOnce(InboxKey(publisher: "p", sequence: 1), consumer: "c", at: old) { _ in () }
        _ = try database.applyOnce(InboxKey(publisher: "p", sequence: 2), consumer: "c", at: recent) { _ in () }
        _ = try database.write { db in
            try ServiceDatabase.recordOnce([InboxKey(publisher: "p", sequence: 3), InboxKey(publisher: "q", sequence: 1)], consumer: "c", at: old, in: db)
        }
        #expect(try database.pruneInbox(appliedBefore: Date(timeIntervalSince1970: 1_500_000)) == 3, "events forgotten, not rows")
        #expect(try !database.hasApplied(InboxKey(publisher: "p", sequence: 1), consumer: "c"))
        #expect(try database.hasApplied(InboxKey(publisher: "p", sequence: 2), consumer: "c"))
    }

    @Test("A batch records its new keys in one row per publisher; a key seen before, or earlier in the batch, is not new")
    func batchMask() throws {
        let database = try database()
        @Sendable func key(_ publisher: String, _ sequence: UInt64) -> InboxKey { InboxKey(publisher: publisher, sequence: sequence) }
        let first = try database.write { db in
            try ServiceDatabase.recordOnce([key("a", 5), key("b", 1), key("a", 3), key("a", 5)], consumer: "c", at: Date(), in: db)
        }
        #expect(first == [true, true, true, false])
        let second = try database.write { db in
            try ServiceDatabase.recordOnce([key("a", 4), key("a", 3), key("b", 1), key("b", 2), key("a", 5)], consumer: "c", at: Date(), in: db)
        }
        #expect(second == [true, false, false, true, false])
        let rows = try database.writer.read { db in try InboxBatchRecord.order(Column("publisher"), Column("lastSequence")).fetchAll(db) }
        #expect(rows.map { "\($0.publisher):\(InboxSequences.decode($0.sequences))" } == ["a:[4]", "a:[3, 5]", "b:[1]", "b:[2]"])
        #expect(rows.map(\.firstSequence) == [4, 3, 1, 2])
        #expect(try database.writer.read { db in try ServiceDatabase.appliedEventCount(in: db) } == 5)
        #expect(try database.writer.read { db in try ServiceDatabase.appliedEventCount(consumer: "other", in: db) } == 0)
    }

    @Test("Generated batches, shuffled, overlapping and repeated, from several publishers: every key is new exactly once")
    func generatedBatchesApplyEachKeyOnce() async {
        await propertyCheck(count: 60, input: Gen.int(in: 1 ... 400), Gen.int(in: 1 ... 64), Gen.uint64()) { keyCount, batchSize, seed in
            var random = SplitMix64(seed: seed)
            let database = try #require(try? self.database())
            // Sequences near both ends of the unsigned range too: stored as signed integers, they must still be told apart.
            let bases: [String: UInt64] = ["p1#1": 0, "p2#1": 1 << 63 - 100, "p3#1": UInt64.max - 500]
            let universe = (0 ..< keyCount).map { _ in
                let publisher = bases.keys.sorted().randomElement(using: &random) ?? "p1#1"
                return InboxKey(publisher: publisher, sequence: (bases[publisher] ?? 0) &+ UInt64.random(in: 1 ... 450, using: &random))
            }
            var arrivals = universe + (0 ..< keyCount / 2).compactMap { _ in universe.randomElement(using: &random) }
            arrivals.shuffle(using: &random)
            var newCount: [InboxKey: Int] = [:]
            for start in stride(from: 0, to: arrivals.count, by: batchSize) {
                let batch = Array(arrivals[start ..< min(arrivals.count, start + batchSize)])
                let fresh = try database.write { db in try ServiceDatabase.recordOnce(batch, consumer: "c", at: Date(), in: db) }
                for (key, isFresh) in zip(batch, fresh) where isFresh { newCount[key, default: 0] += 1 }
            }
            #expect(newCount.count == Set(universe).count, "a key was never applied")
            #expect(newCount.values.allSatisfy { $0 == 1 }, "a key was applied twice")
            for key in Set(universe) { #expect(try database.hasApplied(key, consumer: "c")) }
            #expect(try database.writer.read { db in try ServiceDatabase.appliedEventCount(in: db) } == Set(universe).count)
        }
    }

    @Test("Sequences are kept ascending, 8 bytes each, and found by binary search")
    func sequencesColumn() async {
        await propertyCheck(count: 200, input: Gen.int(in: 0 ... 300), Gen.uint64()) { count, seed in
            var random = SplitMix64(seed: seed)
            let values = Set((0 ..< count).map { _ in Int64.random(in: Int64.min ... Int64.max, using: &random) }).sorted()
            let data = InboxSequences.encode(values)
            #expect(data.count == 8 * values.count)
            #expect(InboxSequences.decode(data) == values)
            for value in values { #expect(InboxSequences.contains(data, value)) }
            for _ in 0 ..< 20 {
                let probe = Int64.random(in: Int64.min ... Int64.max, using: &random)
                #expect(InboxSequences.contains(data, probe) == values.contains(probe))
            }
        }
    }

    @Test("A database from before the batch inbox keeps every event it had applied (store-v2-inbox-batches)")
    func upgradeFromEventRows() throws {
        let directory = NSTemporaryDirectory() + "inbox-upgrade-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let effects: @Sendable (Database) throws -> Void = { db in try db.create(table: "effect") { $0.column("route", .text).notNull() } }
        // The schema as shipped before: the first inbox migration, then the service's own.
        var before = ServiceMigrations()
        before.register(ServiceDatabase.inboxMigrationName, ServiceDatabase.migrateInboxV1)
        before.register("test-001-effects", effects)
        let old = try ServiceDatabase.open(service: "alerts", directory: directory, migrations: before)
        let applied: [(String, String, UInt64, Int64)] = [
            ("alerts.deal", "search#1", 1, 1_000), ("alerts.deal", "search#1", 2, 1_000), ("alerts.deal", "search#1", 9, 2_000),
            ("alerts.deal", "search#2", 1, 1_000), ("alerts.crossing", "search#1", 2, 1_000), ("alerts.crossing", "watch#1", UInt64.max, 3_000),
        ]
        try old.write { db in
            for (consumer, publisher, sequence, at) in applied {
                try db.execute(sql: "INSERT INTO inbox_event VALUES (?, ?, ?, ?)", arguments: [consumer, publisher, Int64(bitPattern: sequence), at])
            }
        }
        try old.close()

        var after = ServiceMigrations()
        after.registerInbox()
        after.register("test-001-effects", effects)
        let upgraded = try ServiceDatabase.open(service: "alerts", directory: directory, migrations: after)
        defer { try? upgraded.close() }
        for (consumer, publisher, sequence, _) in applied {
            #expect(try upgraded.hasApplied(InboxKey(publisher: publisher, sequence: sequence), consumer: consumer), "\(consumer) \(publisher) \(sequence)")
            #expect(try upgraded.applyOnce(InboxKey(publisher: publisher, sequence: sequence), consumer: consumer) { _ in true } == nil)
        }
        #expect(try !upgraded.hasApplied(InboxKey(publisher: "search#1", sequence: 3), consumer: "alerts.deal"))
        #expect(try !upgraded.hasApplied(InboxKey(publisher: "search#1", sequence: 9), consumer: "alerts.crossing"))
        #expect(try upgraded.writer.read { db in try db.tableExists("inbox_event") } == false)
        // One row per consumer, publisher and applied-at time: the transactions that had recorded them.
        #expect(try upgraded.writer.read { db in try InboxBatchRecord.fetchCount(db) } == 5)
        #expect(try upgraded.pruneInbox(appliedBefore: Date(timeIntervalSince1970: 1.5)) == 4)
        #expect(try upgraded.hasApplied(InboxKey(publisher: "search#1", sequence: 9), consumer: "alerts.deal"))
        #expect(try !upgraded.hasApplied(InboxKey(publisher: "search#1", sequence: 1), consumer: "alerts.deal"))
    }
}
