import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

@Suite("Opt-out and deletion")
struct PrivacyTests {
    @Test("an opted-out user's client events are answered OPTED_OUT and stored nowhere, their service events are not kept raw; opting back in records again")
    func optOutAndBackIn() async throws {
        let fixture = try AnalyticsFixture()
        #expect(try await fixture.service.setOptOut(optOut("u-ana", true)).optedOut)
        let refused = try await fixture.service.record(Make.client("c1", "u-ana", .dealViewed, placement: .dealcard))
        #expect(refused.outcome == .optedOut)
        await fixture.publish([Make.search("u-ana", .userSearch, cacheHit: false, at: ms("2026-09-21")), Make.tier("u-ana", .unspecified, .trial, at: ms("2026-09-21"))])
        #expect(try fixture.count("client_event") == 0 && fixture.count("service_event") == 0 && fixture.count("trial_user") == 0)
        #expect(lines(try await fixture.report(.clickThrough, "2026-09-21", "2026-09-21")) == [Line("", 0, 0, 0)])

        #expect(try await !fixture.service.setOptOut(optOut("u-ana", false)).optedOut)
        #expect(try fixture.count("opt_out") == 0)
        #expect(try await fixture.service.record(Make.client("c1", "u-ana", .dealViewed, placement: .dealcard)).outcome == .recorded)
        #expect(try fixture.count("client_event") == 1)
    }

    @Test("an opt-out made under key 1 still holds after the rotation to key 2, and opting in removes it")
    func optOutAcrossRotation() async throws {
        let database = try AnalyticsFixture.newDatabase()
        _ = try await AnalyticsFixture(keys: "1:" + testKey(1), database: database).service.setOptOut(optOut("u-ana", true))
        let rotated = try AnalyticsFixture(keys: "2:\(testKey(2)),1:\(testKey(1))", database: database)
        #expect(try await rotated.service.record(Make.client("c1", "u-ana", .appOpened)).outcome == .optedOut)
        _ = try await rotated.service.setOptOut(optOut("u-ana", false))
        #expect(try await rotated.service.record(Make.client("c1", "u-ana", .appOpened)).outcome == .recorded)
    }

    @Test("a repeated client_event_id is recorded once and answered DUPLICATE")
    func duplicate() async throws {
        let fixture = try AnalyticsFixture()
        #expect(try await fixture.service.record(Make.client("c1", "u-ana", .dealViewed, placement: .sheet)).outcome == .recorded)
        #expect(try await fixture.service.record(Make.client("c1", "u-ana", .dealViewed, placement: .sheet)).outcome == .duplicate)
        #expect(try fixture.count("client_event") == 1)
        let today = CalendarDate(daysSinceEpoch: AnalyticsFixture.startDay).description
        #expect(lines(try await fixture.report(.clickThrough, today, today)) == [Line("sheet", 1, 0, 0), Line("", 1, 0, 0)])
    }

    @Test("DeleteUserData erases the user's raw events, trial start and alerts seen, keeps their opt-out, other users' rows and every roll-up")
    func deleteOnRequest() async throws {
        let fixture = try AnalyticsFixture()
        for (index, user) in ["u-ana", "u-ana", "u-ben"].enumerated() {
            _ = try await fixture.service.record(Make.client("c\(index)", user, .dealViewed, at: ms("2026-09-20"), placement: .dealcard))
        }
        await fixture.publish([
            Make.tier("u-ana", .unspecified, .trial, at: ms("2026-09-20")),
            Make.decided("a-1", "u-ana", .sent, at: ms("2026-09-20")),
            Make.search("u-ben", .userSearch, cacheHit: true, at: ms("2026-09-20")),
        ])
        let reportBefore = try await fixture.report(.clickThrough, "2026-09-20", "2026-09-20")
        // An opted-out user who asks for deletion stays opted out.
        let withOptOut = try AnalyticsFixture(database: fixture.database)
        _ = try await withOptOut.service.setOptOut(optOut("u-ana", true))

        let response = try await withOptOut.service.deleteUserData(deleteRequest("u-ana"))
        #expect(response.eventsDeleted == 4, "2 client events, the trial start and the alert decision")
        #expect(try fixture.count("client_event") == 1 && fixture.count("service_event") == 1)
        #expect(try fixture.count("trial_user") == 0 && fixture.count("alert_seen") == 0 && fixture.count("opt_out") == 1)
        #expect(try await withOptOut.service.record(Make.client("c9", "u-ana", .appOpened)).outcome == .optedOut)
        #expect(try await withOptOut.report(.clickThrough, "2026-09-20", "2026-09-20") == reportBefore)
        #expect(try await withOptOut.service.deleteUserData(deleteRequest("u-ana")).eventsDeleted == 0)
    }

    @Test("UserDeleted erases the user's data and opt-out; its redelivery (same event id) is applied once and erases nothing recorded since")
    func deleteOnAccountDeletion() async throws {
        let fixture = try AnalyticsFixture()
        _ = try await fixture.service.record(Make.client("c1", "u-ana", .appOpened))
        _ = try await fixture.service.record(Make.client("c2", "u-ben", .appOpened))
        _ = try await fixture.service.setOptOut(optOut("u-cat", true))
        let deletion = Make.deleted("u-ana", at: ms("2026-09-21"))
        let deletionID = metadata(for: deletion, publisher: "subscription-1", sequence: 7)
        #expect(await fixture.service.ingest([(deletion, deletionID)]) == 1)
        #expect(try fixture.count("client_event") == 1)

        // Recorded after the deletion (say the id were reused): the redelivery must not erase it.
        _ = try await fixture.service.record(Make.client("c3", "u-ana", .appOpened))
        #expect(await fixture.service.ingest([(deletion, deletionID)]) == 0, "a redelivery is skipped")
        #expect(try fixture.count("client_event") == 2)
        #expect(try fixture.appliedEvents() == 1)

        // Account deletion also forgets the opt-out (nothing more can arrive).
        await fixture.publish([Make.deleted("u-cat")], from: "subscription-1")
        #expect(try fixture.count("opt_out") == 0)
        #expect(await fixture.service.optedOut.isEmpty)
    }
}

@Suite("Retired keys")
struct RetiredKeyTests {
    @Test("dropping a key version that opt-outs were stored under is reported at start (those opt-outs would stop holding)")
    func orphanedOptOut() async throws {
        let database = try AnalyticsFixture.newDatabase()
        _ = try await AnalyticsFixture(keys: "1:" + testKey(1), database: database).service.setOptOut(optOut("u-ana", true))
        let rotated = PseudonymKeyring([PseudonymKey(version: 2, secret: Data(repeating: 2, count: 32))])
        #expect(try AnalyticsServiceEntry.warnOfOrphans(rotated, database: database, logger: quietLogger()) == ["1"])
        let kept = PseudonymKeyring([PseudonymKey(version: 2, secret: Data(repeating: 2, count: 32)), PseudonymKey(version: 1, secret: Data(repeating: 1, count: 32))])
        #expect(try AnalyticsServiceEntry.warnOfOrphans(kept, database: database, logger: quietLogger()).isEmpty)
    }
}
