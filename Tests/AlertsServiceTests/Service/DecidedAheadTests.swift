@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing

/// Decisions made while a batch is prepared, off the database's writer,
/// for users with no policy state (`AlertsService.decideAhead`): they are
/// the decisions the transaction would make, and the transaction decides a
/// user again whenever that may no longer hold.
@Suite struct DecidedAheadTests {
    /// A fixture whose set of users with state is loaded (decisions are made ahead only then).
    static func loadedFixture() async throws -> AlertsFixture {
        let fixture = try AlertsFixture()
        let loader = try await fixture.user("loader@example.com")
        #expect(await fixture.alerts.decide([fixture.crossing(loader, "JFK", "SYD", sequence: 1)]).map(\.decisionValue) == [.sent])
        #expect(fixture.alerts.usersWithState.isLoaded)
        return fixture
    }

    static func withoutID(_ rows: [AlertRow]) -> [AlertRow] {
        rows.map { row in
            var row = row
            row.alertID = ""
            return row
        }
    }

    @Test("for users without state, the decisions made ahead equal the transaction's own: cap competition, metro dedupe within the batch, other zones and tiers")
    func aheadEqualsTransaction() async throws {
        let fixture = try await Self.loadedFixture()
        let free = try await fixture.user("free@example.com")
        let pro = try await fixture.user("pro@example.com", timeZone: "Asia/Tokyo", tier: .pro)
        let london = try await fixture.user("london@example.com", timeZone: "Europe/London")
        var pending: [PendingEvent] = []
        var sequence: UInt64 = 10
        func add(_ user: String, _ origin: String, _ destination: String, cents: Int64) {
            sequence += 1
            pending.append(fixture.crossing(user, origin, destination, cents: cents, sequence: sequence))
        }
        // Five routes for a Free user: three sent, two capped; the cheapest win.
        for (index, destination) in ["NRT", "LAX", "SFO", "CDG", "DEL"].enumerated() { add(free, "JFK", destination, cents: 60_000 + Int64(index) * 1_000) }
        // LHR and LCY are both London: the second is deduped within the batch.
        add(london, "JFK", "LHR", cents: 40_000)
        add(london, "JFK", "LCY", cents: 41_000)
        add(pro, "NRT", "JFK", cents: 90_000)  // 02:00 in Tokyo: quiet hours, held
        let prepared = try #require(await fixture.alerts.prepare(pending))
        #expect(Set(prepared.usersDecidedAhead) == [free, pro, london])

        let here = try await fixture.database.writer.write { db in
            try AlertsService.decideAndRecord(prepared, at: prepared.instant, decidedAhead: .none, usersWithState: fixture.alerts.usersWithState, announcingTo: fixture.alerts.decidedEvents, in: db)
        }
        for user in [free, pro, london] {
            let ahead = try #require(prepared.decidedAhead(for: user))
            #expect(Self.withoutID(ahead) == Self.withoutID(here.filter { $0.userID == user }), "user \(user)")
        }
        #expect(here.filter { $0.userID == free }.map(\.decisionValue) == [.sent, .sent, .sent, .capped, .capped])
        #expect(here.filter { $0.userID == london }.map(\.decisionValue) == [.sent, .deduped])
        #expect(here.filter { $0.userID == pro }.map(\.decisionValue) == [.held])
    }

    @Test("a user muted after the batch was prepared is decided in the transaction, muted, not as prepared")
    func stateGainedAfterPreparing() async throws {
        let fixture = try await Self.loadedFixture()
        let user = try await fixture.user("later@example.com")
        let prepared = try #require(await fixture.alerts.prepare([fixture.crossing(user, sequence: 2)]))
        #expect(prepared.decidedAhead(for: user)?.map(\.decisionValue) == [.sent])

        var mute = MuteRouteRequest()
        mute.userID = user
        mute.origin = "JFK"
        mute.destination = "NRT"
        _ = try await fixture.bus.request(mute)
        let rows = try #require(await fixture.alerts.record(prepared))
        #expect(rows.map(\.decisionValue) == [.muted])
        #expect(try fixture.rows(user).map(\.decisionValue) == [.muted])
        #expect(try fixture.outbox().allSatisfy { $0.userID != user })
    }

    @Test("a batch with a redelivered event decides in the transaction: the redelivered candidate is neither recorded again nor competes")
    func redeliveryDecidedInTransaction() async throws {
        let fixture = try await Self.loadedFixture()
        let user = try await fixture.user("night@example.com")
        fixture.clock.advance(by: 11 * 3_600)  // 23:00 in New York: quiet hours, held (no state)
        #expect(await fixture.alerts.decide([fixture.crossing(user, "JFK", "NRT", sequence: 2)]).map(\.decisionValue) == [.held])

        let again = [fixture.crossing(user, "JFK", "NRT", sequence: 2), fixture.crossing(user, "JFK", "LAX", sequence: 3)]
        let prepared = try #require(await fixture.alerts.prepare(again))
        #expect(prepared.decidedAhead(for: user)?.count == 2, "prepared as if both were fresh")
        let rows = try #require(await fixture.alerts.record(prepared))
        #expect(rows.map(\.destination) == ["LAX"])
        #expect(try fixture.rows(user).map(\.destination).sorted() == ["LAX", "NRT"])
    }

    @Test("a batch is decided at the instant it was prepared, in the transaction too: the clock moving on before it commits changes nothing")
    func decidedAtThePreparedInstant() async throws {
        let fixture = try await Self.loadedFixture()
        let user = try await fixture.user("instant@example.com")
        // A mute on another route gives the user state, so the transaction decides them, not the preparation.
        var mute = MuteRouteRequest()
        mute.userID = user
        mute.origin = "JFK"
        mute.destination = "LAX"
        _ = try await fixture.bus.request(mute)
        let prepared = try #require(await fixture.alerts.prepare([fixture.crossing(user, sequence: 2)]))
        #expect(prepared.decidedAhead(for: user) == nil)
        fixture.clock.advance(by: 11 * 3_600)  // quiet hours by the time it is recorded
        let rows = try #require(await fixture.alerts.record(prepared))
        #expect(rows.map(\.decisionValue) == [.sent])
        #expect(rows.map(\.decidedAtUnixMs) == [prepared.instant.unixMilliseconds])
    }

    @Test("a batch mixing users decided ahead with users decided in the transaction records each user's own rows, once, in user order")
    func mixedBatch() async throws {
        let fixture = try await Self.loadedFixture()
        let users = [
            try await fixture.user("mix-a@example.com"), try await fixture.user("mix-b@example.com"), try await fixture.user("mix-c@example.com"),
            try await fixture.user("mix-d@example.com"),
        ]
        // The second user by id gains state (a mute on another route): decided in the transaction; the others ahead.
        let sorted = users.sorted()
        var mute = MuteRouteRequest()
        mute.userID = sorted[1]
        mute.origin = "JFK"
        mute.destination = "DEL"
        _ = try await fixture.bus.request(mute)
        let destinations = ["NRT", "LAX", "SFO", "CDG"]
        var pending: [PendingEvent] = []
        for (index, user) in users.enumerated() {
            pending.append(fixture.crossing(user, "JFK", destinations[index], sequence: UInt64(2 + 2 * index)))
            pending.append(fixture.crossing(user, "JFK", "LIS", sequence: UInt64(3 + 2 * index)))
        }
        let prepared = try #require(await fixture.alerts.prepare(pending))
        #expect(prepared.usersDecidedAhead == [sorted[0], sorted[2], sorted[3]])
        let rows = try #require(await fixture.alerts.record(prepared))
        #expect(rows.map(\.userID) == sorted.flatMap { [$0, $0] })
        for (index, user) in users.enumerated() {
            #expect(rows.filter { $0.userID == user }.map(\.destination).sorted() == [destinations[index], "LIS"].sorted(), "user \(index)")
            #expect(try fixture.rows(user).map(\.destination).sorted() == [destinations[index], "LIS"].sorted(), "user \(index), stored")
        }
        #expect(Set(rows.map(\.alertID)).count == 8)
    }

    @Test("a batch whose users were all decided ahead records those rows themselves, every one, with their prepared ids")
    func allDecidedAhead() async throws {
        let fixture = try await Self.loadedFixture()
        let users = [try await fixture.user("all-a@example.com"), try await fixture.user("all-b@example.com"), try await fixture.user("all-c@example.com")]
        var pending: [PendingEvent] = []
        for (index, user) in users.enumerated() {
            pending.append(fixture.crossing(user, "JFK", "NRT", sequence: UInt64(2 + 2 * index)))
            pending.append(fixture.crossing(user, "JFK", "LIS", sequence: UInt64(3 + 2 * index)))
        }
        let prepared = try #require(await fixture.alerts.prepare(pending))
        #expect(prepared.usersDecidedAhead == users.sorted())
        let rows = try #require(await fixture.alerts.record(prepared))
        #expect(rows.map(\.alertID) == prepared.decidedAhead.rows.map(\.alertID))
        #expect(rows.count == 6)
        let stored = try users.flatMap { try fixture.rows($0) }
        #expect(Set(stored.map(\.alertID)) == Set(rows.map(\.alertID)))
    }
}
