@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing

/// `AlertDecided` published from the decisions' rows (``DecidedAlertsStore``):
/// under one id per decision across restarts, none lost between a
/// decision's commit and its publish, and no sequence given twice.
@Suite struct DecidedEventsTests {
    /// The relay's row: its instance, next sequence and last settled one.
    static func relayRow(_ database: ServiceDatabase) throws -> (instance: String, next: Int64, settled: Int64) {
        try database.writer.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT instance, nextSequence, settledThrough FROM \(DecidedAlertsStore.tableName)"))
            return (row[0], row[1], row[2])
        }
    }

    /// Each decision's sequence (its rowid) by alert id.
    static func sequences(_ database: ServiceDatabase) throws -> [String: Int64] {
        try database.writer.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT alertID, rowid FROM alert").map { ($0[0] as String, $0[1] as Int64) })
        }
    }

    /// The first `count` deliveries of `subscription`, each settled as the next is asked for (the last when the loop ends).
    static func deliveries(_ count: Int, of subscription: EventSubscription<AlertDecided>) async throws -> [(id: EventID, alert: AlertRecord)] {
        try await withTimeLimit("\(count) AlertDecided arrived") {
            var received: [(id: EventID, alert: AlertRecord)] = []
            for await delivery in subscription {
                received.append((delivery.metadata.id, delivery.event.alert))
                if received.count == count { break }
            }
            return received
        }
    }

    @Test("each decision's AlertDecided is published from its committed row, in order, under alerts.outbox#<instance> and the row's sequence; settled, the next decision transaction records it in the relay's row")
    func publishedFromTheRows() async throws {
        let fixture = try AlertsFixture()
        let decided = fixture.bus.subscribe(AlertDecided.self)
        let user = try await fixture.user("ada@example.com", tier: .pro)
        let relay = Task { await fixture.alerts.decidedEvents.run() }
        defer { relay.cancel() }
        let first = await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", sequence: 1), fixture.crossing(user, "JFK", "LAX", sequence: 2)])
        let second = await fixture.alerts.decide([fixture.crossing(user, "JFK", "SFO", sequence: 3)])
        let received = try await Self.deliveries(3, of: decided)
        let instance = try Self.relayRow(fixture.database).instance
        let sequences = try Self.sequences(fixture.database)
        #expect(received.map(\.id.publisher) == Array(repeating: "alerts.outbox#\(instance)", count: 3))
        #expect(received.map(\.id.sequence) == [1, 2, 3])
        #expect(received.map(\.alert.alertID) == (first + second).map(\.alertID))
        #expect(received.map(\.alert) == (first + second).map(\.message))
        #expect(received.map { sequences[$0.alert.alertID] } == [1, 2, 3])
        decided.cancel()  // settles the last one
        try await waitUntil("the relay settles all three") { fixture.alerts.decidedEvents.settled.highest == 3 }
        #expect(try Self.relayRow(fixture.database).settled == 0, "recorded by the next decision transaction, not by a write of its own")
        _ = try await withTimeLimit("the next decision") { await fixture.alerts.decide([fixture.crossing(user, "JFK", "LHR", sequence: 4)]) }
        #expect(try Self.relayRow(fixture.database).settled == 3)
        #expect(try Self.relayRow(fixture.database).next == 5)
    }

    @Test("decisions committed but not yet settled are published again by the next life, under the same ids, and an inbox applies each once")
    func republishedAfterARestart() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("bo@example.com", tier: .pro)
        // The first life's relay publishes to a subscriber that takes the first event and holds it: nothing settles.
        let holding = fixture.bus.subscribe(AlertDecided.self)
        let firstLife = Locked<[(id: EventID, alert: AlertRecord)]>([])
        let holder = Task {
            var iterator = holding.makeAsyncIterator()
            if let delivery = await iterator.next() { firstLife.update { $0.append((delivery.metadata.id, delivery.event.alert)) } }
            try? await Task.sleep(for: .seconds(60))  // safe: holds the event (its iterator alive) until the test cancels it; bounded
            withExtendedLifetime(iterator) {}
        }
        defer { holder.cancel() }
        let relay = Task { await fixture.alerts.decidedEvents.run() }
        let rows = await fixture.alerts.decide((1 ... 3).map { fixture.crossing(user, "JFK", ["NRT", "LAX", "SFO"][Int($0) - 1], sequence: $0) })
        try await waitUntil("the first life's subscriber holds the first event") { firstLife.get().count == 1 }
        relay.cancel()
        await relay.value
        #expect(try Self.relayRow(fixture.database).settled == 0)

        // The next life: a new bus and service on the same database. Its relay starts after the last settled sequence.
        let bus = AlertsFixture.patientBus()
        // Subscription and the directory answer on the new bus too, for the second life's own decision below.
        try fixture.directory.serve(on: bus)
        try fixture.subscription.register(on: bus)
        let decided = bus.subscribe(AlertDecided.self)
        let restarted = AlertsFixture.service(database: fixture.database, bus: bus, clock: fixture.clock, channels: [fixture.channel])
        let nextRelay = Task { await restarted.decidedEvents.run() }
        defer { nextRelay.cancel() }
        let secondLife = try await Self.deliveries(3, of: decided)
        #expect(secondLife.map(\.alert.alertID) == rows.map(\.alertID))
        #expect(secondLife[0].id == firstLife.get()[0].id)

        let inbox = try AlertsFixture.database("analytics-like", ServiceMigrations())
        let applied = try await inbox.writer.write { db in
            try ServiceDatabase.recordOnce((firstLife.get() + secondLife).map { InboxKey($0.id) }, consumer: "analytics", at: Date(), in: db)
        }
        #expect(applied == [true, false, true, true], "the event published in both lives is applied once")
        decided.cancel()
        try await waitUntil("the second life settles all three") { restarted.decidedEvents.settled.highest == 3 }
        _ = try await withTimeLimit("the second life decides") { await restarted.decide([fixture.crossing(user, "JFK", "LHR", sequence: 4)]) }
        #expect(try Self.relayRow(fixture.database).settled == 3, "recorded by the second life's next decision transaction")
    }

    @Test("a deleted user's newest decisions do not give their sequences to the next ones (SQLite would reuse their rowids)")
    func sequencesNeverReused() async throws {
        let fixture = try AlertsFixture()
        let gone = try await fixture.user("gone@example.com", tier: .pro)
        let stays = try await fixture.user("stays@example.com", tier: .pro)
        _ = await fixture.alerts.decide([fixture.crossing(gone, "JFK", "NRT", sequence: 1), fixture.crossing(gone, "JFK", "LAX", sequence: 2)])
        await fixture.alerts.erase(gone)
        #expect(try Self.sequences(fixture.database).isEmpty)
        let next = try #require(await fixture.alerts.decide([fixture.crossing(stays, sequence: 3)]).first)
        #expect(try Self.sequences(fixture.database) == [next.alertID: 3])
        #expect(try Self.relayRow(fixture.database).next == 4)
    }

    @Test("a decision re-decided STALE_PRICE before delivery moves to a new sequence, so its new AlertDecided is published after the first")
    func staleDecisionPublishedAgain() async throws {
        let fixture = try AlertsFixture()
        let decided = fixture.bus.subscribe(AlertDecided.self)
        let user = try await fixture.user("cy@example.com")
        let relay = Task { await fixture.alerts.decidedEvents.run() }
        defer { relay.cancel() }
        let risen = try #require(await fixture.alerts.decide([fixture.crossing(user, cents: 65_000, sequence: 1)]).first)
        fixture.directory.prices.set(["JFK-NRT": 65_001])
        await fixture.alerts.delivery.deliverDue()
        let received = try await Self.deliveries(2, of: decided)
        #expect(received.map(\.id.sequence) == [1, 2])
        #expect(received.map(\.alert.alertID) == [risen.alertID, risen.alertID])
        #expect(received.map(\.alert.decision) == [.sent, .stalePrice])
        #expect(try Self.sequences(fixture.database) == [risen.alertID: 2])
    }

    @Test("without the relay's row (its migration not run) a transaction fails with migration-failed rather than numbering from 1 again")
    func missingRelayRow() async throws {
        let fixture = try AlertsFixture()
        try await fixture.database.writer.write { db in try db.execute(sql: "DELETE FROM \(DecidedAlertsStore.tableName)") }
        await #expect { try await fixture.database.writer.write { db in _ = try DecisionSequences(in: db) } } throws: {
            ($0 as? StoreError)?.codeName == "migration-failed"
        }
    }

    @Test("a transaction that rolls back gives out no sequence: the next commit's follow the last")
    func rollbackGivesNoSequence() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("di@example.com", tier: .pro)
        _ = await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", sequence: 1)])
        struct Abandoned: Error {}
        await #expect(throws: Abandoned.self) {
            try await fixture.database.writer.write { db in
                var sequences = try DecisionSequences(in: db)
                #expect(sequences.take() == 2)
                try db.execute(sql: "UPDATE \(DecidedAlertsStore.tableName) SET nextSequence = 3")
                throw Abandoned()
            }
        }
        let next = try #require(await fixture.alerts.decide([fixture.crossing(user, "JFK", "LAX", sequence: 2)]).first)
        #expect(try Self.sequences(fixture.database)[next.alertID] == 2)
    }
}
