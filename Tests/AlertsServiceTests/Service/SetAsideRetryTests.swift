@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing

/// Set-aside events keep their content, are listed, and are decided again on
/// an operator's request once the fault is fixed; their content is erased
/// with the user's data and after the retention period (docs/alerts.md, "A
/// batch that cannot be recorded").
@Suite struct SetAsideRetryTests {
    static func key(_ publisher: String, _ sequence: UInt64) -> SetAsideEventKey {
        var key = SetAsideEventKey()
        key.publisher = publisher
        key.sequence = sequence
        return key
    }

    static func retry(_ keys: SetAsideEventKey...) -> RetrySetAsideRequest {
        var request = RetrySetAsideRequest()
        request.events = keys
        return request
    }

    static func unpoison(_ fixture: AlertsFixture) async throws {
        try await fixture.database.writer.write { db in try db.execute(sql: "DROP TRIGGER poison") }
    }

    /// A fixture where `bo`'s crossing (watchlist-test/2) was set aside beside ann's, decided.
    static func setAsideCrossing() async throws -> (fixture: AlertsFixture, ann: String, bo: String) {
        let fixture = try AlertsFixture()
        let ann = try await fixture.user("ann@example.com")
        let bo = try await fixture.user("bo@example.com")
        try await SetAsideTests.poison(bo, in: fixture)
        let contents = EventContents([InboxKey(publisher: "watchlist-test", sequence: 2): fixture.crossingEvent(bo)])
        _ = try await withTimeLimit("the batch recorded") { await fixture.alerts.decide([fixture.crossing(ann, sequence: 1), fixture.crossing(bo, sequence: 2)], contents: contents) }
        return (fixture, ann, bo)
    }

    @Test("a set-aside crossing is listed as retriable; retried while the fault remains it stays set aside with the new error; retried once fixed it is decided once, sent into the outbox, and no longer set aside")
    func retriedOnceFixed() async throws {
        let (fixture, _, bo) = try await Self.setAsideCrossing()
        let listed = try await fixture.alerts.setAsideEvents().events
        #expect(listed.map(\.sequence) == [2])
        #expect(listed.first?.retriable == true)
        #expect(listed.first?.consumer == AlertsService.crossingConsumer)
        #expect(try SetAsideTests.setAside(fixture).first?.userID == bo, "kept for erasure")

        // Still poisoned: not decided, still set aside, the error SQLite's again.
        fixture.clock.advance(by: 60)
        let failed = try await withTimeLimit("the first retry") { try await fixture.alerts.retrySetAside(Self.retry(Self.key("watchlist-test", 2))) }.events
        #expect(failed.count == 1)
        #expect(failed.first?.decided == false)
        #expect(failed.first?.error.hasPrefix("SQLite error 1811: poisoned row") == true, "\(failed.first?.error ?? "")")
        #expect(try fixture.rows(bo).isEmpty)
        #expect(try SetAsideTests.setAside(fixture).count == 1)

        try await Self.unpoison(fixture)
        let retried = try await withTimeLimit("the retry") { try await fixture.alerts.retrySetAside(Self.retry(Self.key("watchlist-test", 2))) }.events
        #expect(retried.first?.decided == true)
        #expect(retried.first?.decisions == 1)
        #expect(try fixture.rows(bo).map(\.decisionValue) == [.sent])
        let outbox = try await fixture.database.writer.read { db in try OutboxRow.filter(Column("userID") == bo).fetchCount(db) }
        #expect(outbox == 1)
        #expect(try SetAsideTests.setAside(fixture).isEmpty)
        #expect(try await fixture.alerts.setAsideEvents().events.isEmpty)

        // A second retry names an event no longer set aside.
        await #expect { try await fixture.alerts.retrySetAside(Self.retry(Self.key("watchlist-test", 2))) } throws: { ($0 as? AlertsError)?.code == "not-set-aside" }
        // And a redelivery of the event is still skipped by the inbox.
        #expect(try await withTimeLimit("the redelivery") { await fixture.alerts.decide([fixture.crossing(bo, sequence: 2)]) }.isEmpty)
        #expect(try fixture.rows(bo).count == 1)
    }

    @Test("eight retries of one event at once decide it once: one is decided, the others find it gone")
    func concurrentRetriesDecideOnce() async throws {
        let (fixture, _, bo) = try await Self.setAsideCrossing()
        try await Self.unpoison(fixture)
        let outcomes = try await withTimeLimit("eight retries") {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            let event = try await fixture.alerts.retrySetAside(Self.retry(Self.key("watchlist-test", 2))).events.first
                            return event?.decided == true ? "decided" : (event?.error ?? "none")
                        } catch let error as AlertsError {
                            return error.code
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
        }
        #expect(outcomes.filter { $0 == "decided" }.count == 1, "\(outcomes)")
        #expect(outcomes.allSatisfy { ["decided", "not-set-aside", "no longer set aside: retried meanwhile"].contains($0) }, "\(outcomes)")
        #expect(try fixture.rows(bo).count == 1)
    }

    @Test("a retry names events or sets all, not both and not neither (invalid-field, events); an unknown event is not-set-aside and nothing is retried")
    func requestsChecked() async throws {
        let (fixture, _, bo) = try await Self.setAsideCrossing()
        try await Self.unpoison(fixture)
        await #expect { try await fixture.alerts.retrySetAside(RetrySetAsideRequest()) } throws: { ($0 as? AlertsError)?.code == "invalid-field" && ($0 as? AlertsError)?.field == "events" }
        var both = Self.retry(Self.key("watchlist-test", 2))
        both.all = true
        await #expect { try await fixture.alerts.retrySetAside(both) } throws: { ($0 as? AlertsError)?.code == "invalid-field" && ($0 as? AlertsError)?.field == "events" }
        // One known and one unknown: refused before anything is retried.
        await #expect { try await fixture.alerts.retrySetAside(Self.retry(Self.key("watchlist-test", 2), Self.key("watchlist-test", 99))) } throws: {
            ($0 as? AlertsError)?.code == "not-set-aside" && "\($0)".contains("watchlist-test/99")
        }
        #expect(try fixture.rows(bo).isEmpty)
        var all = RetrySetAsideRequest()
        all.all = true
        #expect(try await fixture.alerts.retrySetAside(all).events.map(\.decided) == [true])
    }

    @Test("a set-aside exceptional deal is retried from its content: its users are asked of subscription again, and a user who prefers its origin now is decided too")
    func dealRetriedWithItsUsersAskedAgain() async throws {
        let fixture = try AlertsFixture()
        let ann = try await fixture.user("ann@example.com", tier: .pro, airports: ["JFK"])
        try await SetAsideTests.poison(ann, in: fixture)
        let deal = SubscriptionAwayTests.deal("d1", origin: "JFK"), key = InboxKey(publisher: "scoring", sequence: 5)
        let pending = try #require(await fixture.alerts.pendingEvent(for: deal, key: key))
        #expect(try await withTimeLimit("the deal recorded") { await fixture.alerts.decide([pending], contents: EventContents([key: deal])) }.isEmpty)
        let row = try #require(try SetAsideTests.setAside(fixture).first)
        #expect(row.consumer == AlertsService.dealConsumer)
        #expect(row.userID.isEmpty, "a deal names no user")
        let cy = try await fixture.user("cy@example.com", tier: .pro, airports: ["JFK"])
        try await Self.unpoison(fixture)
        let retried = try await withTimeLimit("the retry") { try await fixture.alerts.retrySetAside(Self.retry(Self.key("scoring", 5))) }.events
        #expect(retried.first?.decided == true)
        #expect(retried.first?.decisions == 2)
        #expect(try fixture.rows(ann).map(\.dealID) == ["d1"])
        #expect(try fixture.rows(cy).map(\.dealID) == ["d1"])
    }

    @Test("a row set aside before its content was kept (alerts-004) is listed as not retriable, and a retry reports it and leaves it")
    func withoutContentNotRetried() async throws {
        let fixture = try AlertsFixture()
        try await fixture.database.writer.write { db in
            try SetAsideEventRow(publisher: "old-node", sequence: 7, consumer: AlertsService.crossingConsumer, candidates: 1, error: "SQLite error 19", setAsideAtUnixMs: 1).insert(db)
        }
        #expect(try await fixture.alerts.setAsideEvents().events.map(\.retriable) == [false])
        var all = RetrySetAsideRequest()
        all.all = true
        let retried = try await fixture.alerts.retrySetAside(all).events
        #expect(retried.first?.decided == false)
        #expect(retried.first?.error.contains("content was not kept") == true)
        #expect(try SetAsideTests.setAside(fixture).count == 1)
    }

    @Test("a deleted user's set-aside events are erased with the user's data; an exceptional deal's (which names no user) stay")
    func erasedWithTheUser() async throws {
        let (fixture, _, bo) = try await Self.setAsideCrossing()
        try await fixture.database.writer.write { db in
            try SetAsideEventRow(publisher: "scoring", sequence: 3, consumer: AlertsService.dealConsumer, candidates: 2, error: "x", setAsideAtUnixMs: 1, payload: Data([1])).insert(db)
        }
        await fixture.alerts.erase(bo)
        #expect(try SetAsideTests.setAside(fixture).map(\.publisher) == ["scoring"])
    }

    @Test("set-aside events older than the retention period (90 days) are deleted by retention; younger ones stay")
    func deletedByRetention() async throws {
        let (fixture, _, _) = try await Self.setAsideCrossing()
        fixture.clock.advance(by: 89 * 86_400)
        await fixture.alerts.applyRetention(now: fixture.clock.now())
        #expect(try SetAsideTests.setAside(fixture).count == 1)
        fixture.clock.advance(by: 86_400 + 60)
        await fixture.alerts.applyRetention(now: fixture.clock.now())
        #expect(try SetAsideTests.setAside(fixture).isEmpty)
    }

    @Test("on the running service, in one process and split: a poisoned crossing published on the server is set aside by alerts on the client, listed over the bus, and decided by a retry over the bus once fixed", arguments: MeshShape.allCases)
    func retriedOverTheBus(shape: MeshShape) async throws {
        let holder = AlertsMeshTests.Holder()
        try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { server, client in
            holder.fixture.set(try AlertsFixture(bus: server, alertsBus: client))
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let user = try await fixture.user("mesh@example.com", tier: .pro)
            try await SetAsideTests.poison(user, in: fixture)
            let task = Task { try await fixture.alerts.run() }
            defer { task.cancel() }
            try await mesh.serverBus.publish(CompetingTopicsTests.crossing(user, "JFK", "NRT"))
            try await waitUntil("the crossing set aside") { ((try? await mesh.serverBus.request(SetAsideEventsRequest()))?.events.count ?? 0) == 1 }
            let listed = try #require(try await mesh.serverBus.request(SetAsideEventsRequest()).events.first)
            #expect(listed.retriable)
            #expect(listed.consumer == AlertsService.crossingConsumer)
            try await Self.unpoison(fixture)
            let retried = try await mesh.serverBus.request(Self.retry(Self.key(listed.publisher, listed.sequence)))
            #expect(retried.events.map(\.decided) == [true])
            var history = AlertHistoryRequest()
            history.userID = user
            let alerts = try await mesh.serverBus.request(history).alerts
            #expect(alerts.map(\.decision) == [.sent])
            #expect(alerts.first?.destination == "NRT")
            do {
                _ = try await mesh.serverBus.request(Self.retry(Self.key(listed.publisher, listed.sequence)))
                Issue.record("a second retry was accepted")
            } catch {
                #expect((error as? BusError)?.remoteCode == "not-set-aside")
            }
        }
    }
}
