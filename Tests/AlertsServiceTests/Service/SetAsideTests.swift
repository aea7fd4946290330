@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import SubscriptionService

/// A batch whose transaction fails for a reason in its data is decided one
/// event at a time, and the event that fails alone is set aside; a failure
/// of the database itself is waited out (docs/alerts.md, "A batch that
/// cannot be recorded").
@Suite struct SetAsideTests {
    /// Inserts into `alert` for `user` fail with a constraint (SQLite's
    /// `SQLITE_CONSTRAINT`, as a `CHECK` or a duplicate key would), every time.
    static func poison(_ user: String, in fixture: AlertsFixture) async throws {
        try await fixture.database.writer.write { db in
            try db.execute(sql: "CREATE TEMP TRIGGER poison BEFORE INSERT ON alert WHEN NEW.userID = '\(user)' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END")
        }
    }

    static func setAside(_ fixture: AlertsFixture) throws -> [SetAsideEventRow] {
        try fixture.database.writer.read { db in try SetAsideEventRow.order(Column("sequence")).fetchAll(db) }
    }

    @Test("a batch with one event whose decisions cannot be recorded: the other events are decided, that one is set aside (in the inbox, and in set_aside_event with its content; no user id in the error) and a redelivery of it decides nothing")
    func poisonedEventSetAside() async throws {
        let fixture = try AlertsFixture()
        let ann = try await fixture.user("ann@example.com")
        let bo = try await fixture.user("bo@example.com")
        let cy = try await fixture.user("cy@example.com")
        try await Self.poison(bo, in: fixture)
        let batch = [fixture.crossing(ann, sequence: 1), fixture.crossing(bo, sequence: 2), fixture.crossing(cy, sequence: 3)]
        let rows = try await withTimeLimit("the batch recorded") { await fixture.alerts.decide(batch) }
        #expect(Set(rows.map(\.userID)) == [ann, cy])
        #expect(rows.allSatisfy { $0.decisionValue == .sent })
        #expect(try fixture.rows(bo).isEmpty)
        let setAside = try Self.setAside(fixture)
        #expect(setAside.map(\.sequence) == [2])
        #expect(setAside.first?.consumer == AlertsService.crossingConsumer)
        #expect(setAside.first?.candidates == 1)
        #expect(setAside.first?.error.hasPrefix("SQLite error 1811: poisoned row") == true, "SQLITE_CONSTRAINT_TRIGGER and its message: \(setAside.first?.error ?? "")")
        #expect(setAside.first.map { !$0.error.contains(bo) } == true, "no user id in the row")
        #expect(try await fixture.database.writer.read { db in try ServiceDatabase.appliedEventCount(consumer: AlertsService.crossingConsumer, in: db) } == 3)
        // Redelivered, the set-aside event is skipped like any applied one: not tried, not set aside again.
        #expect(try await withTimeLimit("the redelivery") { await fixture.alerts.decide([fixture.crossing(bo, sequence: 2)]) }.isEmpty)
        #expect(try Self.setAside(fixture).count == 1)
    }

    @Test("a full disk (SQLITE_FULL) is no reason in the data: the batch is waited out, nothing is set aside")
    func fullDiskWaitedOut() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("dee@example.com")
        let attempts = Locked(0)
        try await fixture.database.writer.write { db in
            db.add(function: DatabaseFunction("disk_full", argumentCount: 0, pure: false) { _ in
                attempts.update { $0 += 1 }
                throw DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")
            })
            try db.execute(sql: "CREATE TEMP TRIGGER full BEFORE INSERT ON alert BEGIN SELECT disk_full(); END")
        }
        let deciding = Task { await fixture.alerts.decide([fixture.crossing(user, sequence: 1), fixture.crossing(user, "JFK", "LAX", sequence: 2)]) }
        try await fixture.retryUntil("the transaction failed twice") { attempts.get() >= 2 }
        #expect(try Self.setAside(fixture).isEmpty)
        try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER full") }
        try await fixture.retryUntil("decided once the disk has room") { ((try? fixture.rows(user)) ?? []).count == 2 }
        let rows = try await withTimeLimit("decided once the disk has room") { await deciding.value }
        #expect(rows.count == 2)
        #expect(try Self.setAside(fixture).isEmpty)
    }

    @Test("on the running service, a poisoned crossing does not hold up its topic: the crossings published after it are decided")
    func topicNotHeldUp() async throws {
        let fixture = try AlertsFixture()
        let ann = try await fixture.user("ann@example.com", tier: .pro)
        let bo = try await fixture.user("bo@example.com", tier: .pro)
        try await Self.poison(bo, in: fixture)
        let running = Task { try await fixture.alerts.run() }
        defer { running.cancel() }
        func crossing(_ user: String, _ destination: String) -> ThresholdCrossed {
            var event = ThresholdCrossed()
            (event.userID, event.watchlistID, event.origin, event.destination) = (user, "w-\(destination)", "JFK", destination)
            event.priceThreshold = usd(70_000)
            event.check.lowestPrice = usd(65_000)
            event.check.belowThreshold = true
            return event
        }
        try await fixture.bus.publish(crossing(bo, "NRT"))
        for destination in ["LAX", "SFO", "LHR"] { try await fixture.bus.publish(crossing(ann, destination)) }
        try await waitUntil("the crossings after the poisoned one decided", limit: .seconds(20)) { ((try? fixture.rows(ann)) ?? []).count == 3 }
        #expect(try Self.setAside(fixture).count == 1)
        #expect(try fixture.rows(bo).isEmpty)
    }
}
