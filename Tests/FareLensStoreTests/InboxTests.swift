import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing

/// The inbox makes an event's effect happen once although durable events
/// arrive at least once (docs/bus.md, "Exactly-once effects").
@Suite("Inbox")
struct InboxTests {
    private func database() throws -> ServiceDatabase {
        var migrations = ServiceMigrations()
        migrations.register(ServiceDatabase.inboxMigrationName, ServiceDatabase.migrateInbox)
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
        migrations.register(ServiceDatabase.inboxMigrationName, ServiceDatabase.migrateInbox)
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
        #expect(try database.pruneInbox(appliedBefore: Date(timeIntervalSince1970: 1_500_000)) == 1)
        #expect(try !database.hasApplied(InboxKey(publisher: "p", sequence: 1), consumer: "c"))
        #expect(try database.hasApplied(InboxKey(publisher: "p", sequence: 2), consumer: "c"))
    }
}
